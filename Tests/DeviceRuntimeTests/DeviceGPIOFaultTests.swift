import CheckInFeature
@testable import DeviceRuntime
import DeviceClock
import DeviceClockLive
import DeviceConfig
import Glibc
import Logging
import XCTest

/// The whole device on the simulated board: a chip that goes away shows as the feature's error
/// (status, logs, systemd STATUS read it), and when it is back the LEDs show the pattern again.
@MainActor
final class DeviceGPIOFaultTests: XCTestCase {
    func testARemovedChipIsTheDevicesFaultUntilItIsBackAndThenTheLEDsAreRewritten() async throws {
        let directory = "/tmp/lifesignal-gpio-fault-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        defer { _ = try? rmTree(directory) }
        var configuration = DeviceConfiguration(storePath: directory + "/store.sqlite", controlSocket: directory + "/control.sock")
        configuration.simulator = SimulatorConfiguration(chatterEdges: 0, terminal: .off)
        configuration.acknowledgement = .milliseconds(20)
        let device = try Device(configuration: configuration, clock: .live(),
                                logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() })
        try device.start()
        let board = try XCTUnwrap(device.simulatedGPIO)
        // Checked in: a steady pattern, so a rewrite that did not happen cannot hide in a blink.
        try await until("the store is loaded") { device.store.state.hasLoadedHistory }
        device.store.send(.checkInRequested(.cli))
        try await until("the device shows checked in") { device.store.state.indicator == .checkedIn }
        let checkedIn = board.ledLevels
        XCTAssertTrue(checkedIn.contains(true), "\(checkedIn)")

        board.removeChip()
        try await until("the lost chip is the device's error") { device.store.state.error?.kind == .gpioUnavailable }
        let message = device.store.state.error?.message ?? ""
        XCTAssertTrue(message.contains("waiting for GPIO simulated chip"), message)
        XCTAssertTrue(message.contains("the chip was removed"), message)
        XCTAssertTrue(device.summary.contains("waiting for GPIO"), device.summary)
        XCTAssertEqual(device.leds.levels, [false, false, false], "no LED is reported lit while its chip is gone")

        board.restoreChip()
        try await until("the error clears once the chip is back") { device.store.state.error == nil }
        try await until("the LEDs show the pattern again") { board.ledLevels == checkedIn }
        XCTAssertEqual(device.leds.levels, board.ledLevels, "what the driver believes is what the lines show")
        await device.stop()
    }

    /// Waits (yielding to the main actor) until `condition` holds; fails after 5 s of waiting.
    private func until(_ what: String, _ condition: () -> Bool) async throws {
        for _ in 0..<5000 {
            if condition() { return }
            try await Task.sleep(for: .milliseconds(1))
        }
        XCTFail("timed out waiting: \(what)")
    }

    private func rmTree(_ path: String) throws {
        for name in ["store.sqlite", "store.sqlite-wal", "store.sqlite-shm", "control.sock"] { unlink(path + "/" + name) }
        rmdir(path)
    }
}
