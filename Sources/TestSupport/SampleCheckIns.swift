public import CheckInModels

/// Check-ins as a device would have stored them, one millisecond apart on one earlier boot; every
/// other one with a synchronised wall clock, every third from the CLI.
public func sampleCheckIns(_ count: Int, startingAt start: Int64 = 1_795_000_000_000_000) -> [CheckInRecord] {
    (0..<count).map { (index: Int) -> CheckInRecord in
        let wall = WallTime(microsecondsSinceEpoch: start + Int64(index) * 1000)
        let instant = DeviceInstant(wall: wall, uptime: Duration.seconds(100 + index), bootID: "6c1b1f0e-test-boot",
                                    wallClockSynchronized: index % 2 == 0)
        let source: CheckInSource = index % 3 == 0 ? .cli : .button
        return CheckInRecord(id: CheckInID.random(), at: instant, source: source)
    }
}
