# kiln.lock.hcl: written by kiln; commit it. Edit the pipeline, not this file.
version = 1

node "exec.letters" {
  key    = "7126900cc84cefca12e3c972500e903ffc7f8dacf646c90d531ea05b28440a17"
  digest = "c42766bc19753a42739ee62b674e73500b5b06388609795b818787a46fadadd4"
  kiln   = "0.1.0"
}

node "exec.longest" {
  key    = "187c4435e36ba1aeb4cdfdc8a29058a8219e7865e494907d05077f302b440374"
  digest = "e3377ea1aecdf15e8dd9d477274890365d1469380b58a2453d0f220c05561938"
  kiln   = "0.1.0"
}

node "exec.normalize" {
  key    = "1ef9f666f5cb74fc301c4280177aa92d387b02876b7e940cd34d792962dae832"
  digest = "5e8269316a77b3dd37dfad9869c2022711b07f60e9546d9afb3e8bd3f46b0df8"
  kiln   = "0.1.0"
}

node "exec.report" {
  key    = "0b4676b09d9eb448693eb895112dfb0ab14b0d55574b1c8337e4032ad940a785"
  digest = "a60d7b085ef2324c70b98ff7726781fab5b717bf353c3aa2607336c690a84579"
  kiln   = "0.1.0"
}

node "exec.stats" {
  key    = "46d1ae6f3b6343e98a71815f860cb8f54b16c3f3620a76f0abf27e34cba0c4f8"
  digest = "c24eadd0627421f992db8725d6b08d19ca0978f9034140466719aa16a036a91b"
  kiln   = "0.1.0"
}
