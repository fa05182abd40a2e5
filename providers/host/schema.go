package host

import (
	"github.com/kilnbuild/kiln/engine/schema"
	"github.com/zclconf/go-cty/cty"
)

// blockSchema is the host block: the loader decodes with its Spec, and the
// reference is written from it.
var blockSchema = &schema.Block{
	Name:    "host",
	Labels:  []string{"name"},
	Summary: "the facts of the machine kiln runs on (NPUs, driver, firmware, CANN, CPU architecture) and requirements on them",
	Doc: `Facts are read at plan time, cheaply and without ever failing the plan: a missing npu-smi or version file leaves the fact empty and says why. Requirements the facts do not meet mark the host, and every node that sets host = host.NAME, as unable to run here, with one message naming each unmet requirement; the plan still shows everything.

Only the facts named in the require block enter the keys of the nodes that use the host, so a driver upgrade rebuilds only what requires a driver. The NPU devices a host node finds are the npu pool of plan and apply (see Pools): their logic ids from npu-smi info -m, without the cards whose Health in the npu-smi info table is not OK; -resource npu=IDS says otherwise.`,
	Example: `host "a2" {
  require {
    npus = 8
    cann = "8.3.RC1"
  }
}`,
	Attrs: []schema.Attr{
		{Name: "npu_smi", Type: cty.String, DefaultDoc: `"` + DefaultNPUSmi + `" on PATH`, Key: schema.KeyValue,
			Doc: "The npu-smi program (a name on PATH or a path): info -l gives the NPU count, info -m the device ids, info their health.", Example: `"/usr/local/sbin/npu-smi"`},
		{Name: "driver_info", Type: cty.String, DefaultDoc: `"` + DefaultDriverInfo + `"`, Key: schema.KeyValue,
			Doc: "The key=value file holding the driver version.", Example: `"/opt/ascend/driver/version.info"`},
		{Name: "firmware_info", Type: cty.String, DefaultDoc: `"` + DefaultFirmwareInfo + `"`, Key: schema.KeyValue,
			Doc: "The key=value file holding the firmware version.", Example: `"/opt/ascend/firmware/version.info"`},
		{Name: "cann_info", Type: cty.String, DefaultDoc: `"` + DefaultCANNInfo + `"`, Key: schema.KeyValue,
			Doc: `The file holding the CANN version; "<arch>" stands for the machine's architecture.`, Example: `"/opt/cann/latest/<arch>-linux/ascend_toolkit_install.info"`},
	},
	Blocks: []*schema.Block{{
		Name:    "require",
		Summary: "what the machine must have; the required facts enter the keys of the nodes that use the host",
		Attrs: []schema.Attr{
			{Name: "npus", Type: cty.Number, Key: schema.KeyValue, Doc: "The least number of NPUs.", Example: `8`},
			{Name: "cann", Type: cty.String, Key: schema.KeyValue, Doc: "The exact CANN version.", Example: `"8.3.RC1"`},
			{Name: "arch", Type: cty.String, Key: schema.KeyValue, Doc: "The exact CPU architecture, as uname -m prints it.", Example: `"aarch64"`},
			{Name: "driver", Type: cty.String, Key: schema.KeyValue, Doc: "A prefix of the driver version.", Example: `"24.1"`},
			{Name: "firmware", Type: cty.String, Key: schema.KeyValue, Doc: "A prefix of the firmware version.", Example: `"7.5"`},
			{Name: "files", Type: cty.List(cty.String), Key: schema.KeyValue, Doc: `Files that must exist (a library a run preloads: the loader only warns about a missing LD_PRELOAD); relative to the pipeline folder, "<arch>" for the machine's architecture. Whether they exist does not enter the key.`, Example: `["/usr/lib/aarch64-linux-gnu/libjemalloc.so.2"]`},
			{Name: "programs", Type: cty.List(cty.String), Key: schema.KeyValue, Doc: `Programs that must be found on PATH at plan time (the compilers and tools a build runs: gcc, g++, make); a name is looked up on PATH, a path must be an executable file. A missing one blocks the host with the package that ships it where kiln knows one. Where they are found does not enter the key.`, Example: `["gcc", "g++", "make"]`},
		},
	}},
	Exports: []schema.Export{
		{Name: "npus", Type: cty.Number, Doc: "the NPUs found (0 when npu-smi is missing)"},
		{Name: "cann", Type: cty.String, Doc: "the CANN version found"},
		{Name: "driver", Type: cty.String, Doc: "the driver version found"},
		{Name: "firmware", Type: cty.String, Doc: "the firmware version found"},
		{Name: "arch", Type: cty.String, Doc: "the CPU architecture"},
	},
}

// Schema describes the host block.
func (h *Host) Schema() *schema.Block { return blockSchema }
