# kiln.lock.hcl: written by kiln; commit it. Edit the pipeline, not this file.
version = 1

node "exec.letters" {
  key    = "f8022440c44f2513003d8d3d538fbbeebe99f5e8147584a7d75a46d9da5bd93e"
  digest = "c42766bc19753a42739ee62b674e73500b5b06388609795b818787a46fadadd4"
  kiln   = "0.1.0"
}

node "exec.longest" {
  key    = "7744d0ddc3cb760947494a05721575969cdd9824c79e6bf30669108fc831ff05"
  digest = "e3377ea1aecdf15e8dd9d477274890365d1469380b58a2453d0f220c05561938"
  kiln   = "0.1.0"
}

node "exec.normalize" {
  key    = "5d88dac702bb6f81d8217f4b19992c2e0c3a50471f162352ab33b4f84df82d36"
  digest = "5e8269316a77b3dd37dfad9869c2022711b07f60e9546d9afb3e8bd3f46b0df8"
  kiln   = "0.1.0"
}

node "exec.report" {
  key    = "07b6acaefed7ae5568c857c9766b5ed1e81eac86b621c0cb71a23a94bb959e32"
  digest = "a60d7b085ef2324c70b98ff7726781fab5b717bf353c3aa2607336c690a84579"
  kiln   = "0.1.0"
}

node "exec.stats" {
  key    = "3bd8350c6d6736d2b40fc615d90aec658af8a9a39d2aabc594db4f71bf4f2d01"
  digest = "c24eadd0627421f992db8725d6b08d19ca0978f9034140466719aa16a036a91b"
  kiln   = "0.1.0"
}
