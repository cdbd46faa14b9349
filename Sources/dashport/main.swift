print("dashport: not built yet")
