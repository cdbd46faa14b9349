print("dashport-hu: not built yet")
