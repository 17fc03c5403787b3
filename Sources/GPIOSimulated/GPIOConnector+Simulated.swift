public import GPIOClient

extension GPIOConnector {
    /// The simulated board as a backend of `GPIOClient.holding`: its chip can be removed and
    /// restored (tests, demos), and only its return cures a failure.
    public static func simulated(_ simulator: SimulatedGPIO) -> GPIOConnector {
        GPIOConnector(
            chipDescription: "simulated chip",
            connect: { () throws(GPIOError) in try simulator.connect() },
            chipChanges: {
                let watch = simulator.watchChip()
                return ChipWatch(changes: watch.changes, stop: watch.stop)
            },
            onlyAChipChangeHelps: { _ in true })
    }
}
