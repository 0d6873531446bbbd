print("vaultctl")
