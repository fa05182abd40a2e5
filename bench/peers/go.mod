module github.com/kilnbuild/kiln/bench/peers

go 1.26.8

require (
	github.com/dominikbraun/graph v0.23.0
	github.com/hashicorp/go-getter/v2 v2.2.5
	github.com/kilnbuild/kiln v0.0.0
)

require (
	github.com/bgentry/go-netrc v0.0.0-20140422174119-9fd32a8b3d3d // indirect
	github.com/hashicorp/errwrap v1.0.0 // indirect
	github.com/hashicorp/go-cleanhttp v0.5.0 // indirect
	github.com/hashicorp/go-multierror v1.1.0 // indirect
	github.com/hashicorp/go-safetemp v1.0.0 // indirect
	github.com/hashicorp/go-version v1.1.0 // indirect
	github.com/klauspost/compress v1.11.2 // indirect
	github.com/mitchellh/go-homedir v1.0.0 // indirect
	github.com/mitchellh/go-testing-interface v1.0.0 // indirect
	github.com/ulikunitz/xz v0.5.15 // indirect
	golang.org/x/sys v0.50.0 // indirect
)

replace github.com/kilnbuild/kiln => ../..
