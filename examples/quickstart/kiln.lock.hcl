# kiln.lock.hcl: written by kiln; commit it. Edit the pipeline, not this file.
version = 1

node "exec.letters" {
  key    = "6305d12c5c0f72f0bed7ecfef51587bcbdda82cb80b15ff8478e63b69de471fd"
  digest = "c42766bc19753a42739ee62b674e73500b5b06388609795b818787a46fadadd4"
  kiln   = "0.1.0"
}

node "exec.longest" {
  key    = "b1ad2946e99799231422ca161845fb8ef43f36c1506e52282b78bbfd918a446b"
  digest = "e3377ea1aecdf15e8dd9d477274890365d1469380b58a2453d0f220c05561938"
  kiln   = "0.1.0"
}

node "exec.normalize" {
  key    = "331004bd0721bf1cce47ed6d40df2074b9ca80bfb9ed0aca7c8e4ebffb834304"
  digest = "5e8269316a77b3dd37dfad9869c2022711b07f60e9546d9afb3e8bd3f46b0df8"
  kiln   = "0.1.0"
}

node "exec.report" {
  key    = "2fbfbf2f23ef9cb1be02156fb964717ec0f2ef140be8ec95e4a475a53f98b1a3"
  digest = "a60d7b085ef2324c70b98ff7726781fab5b717bf353c3aa2607336c690a84579"
  kiln   = "0.1.0"
}

node "exec.stats" {
  key    = "4f9ed2e21403351f10cd24e82f2947382e21e316aa7924b281216a7cd22a8c75"
  digest = "c24eadd0627421f992db8725d6b08d19ca0978f9034140466719aa16a036a91b"
  kiln   = "0.1.0"
}
