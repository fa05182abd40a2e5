# kiln.lock.hcl: written by kiln; commit it. Edit the pipeline, not this file.
version = 1

node "exec.letters" {
  key    = "be1bf0512de5558bb27f3416e0d9c4e10c25c3f00f6660ca990f27cfa4f58712"
  digest = "c42766bc19753a42739ee62b674e73500b5b06388609795b818787a46fadadd4"
  kiln   = "0.1.0"
}

node "exec.longest" {
  key    = "b9aa9729b98c0a2ce3cc85e9b939d26f6dfaf73ec9bc709c6da456b41f85cbe8"
  digest = "e3377ea1aecdf15e8dd9d477274890365d1469380b58a2453d0f220c05561938"
  kiln   = "0.1.0"
}

node "exec.normalize" {
  key    = "7fd595d4e6abacdde5e2da34d1c3ed745c83060c5fac51ffd4cdef13ec112493"
  digest = "5e8269316a77b3dd37dfad9869c2022711b07f60e9546d9afb3e8bd3f46b0df8"
  kiln   = "0.1.0"
}

node "exec.report" {
  key    = "31e05cd94ed7975964598513b4b5a831fbb22412385057333ee0b530b23c56ea"
  digest = "a60d7b085ef2324c70b98ff7726781fab5b717bf353c3aa2607336c690a84579"
  kiln   = "0.1.0"
}

node "exec.stats" {
  key    = "e96645a9ca697e988e725153e9c143502b6f710a4ea0f3888e501011d19e8367"
  digest = "c24eadd0627421f992db8725d6b08d19ca0978f9034140466719aa16a036a91b"
  kiln   = "0.1.0"
}
