print("lifesignalctl: not yet")
