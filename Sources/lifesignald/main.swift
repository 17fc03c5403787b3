print("lifesignald: not yet")
