import DeviceConfig
@testable import DeviceRuntime
import GPIOSimulated
import LEDLanguage
import TestSupport
import XCTest

/// The whole device on the simulated board, whose chip can be removed and restored: a chip that
/// goes away is the device's fault (status, logs and systemd's STATUS read it), and once it is
/// back the LEDs show the pattern again.
@MainActor
final class GPIOFaultTests: XCTestCase {
    var directory: TemporaryDirectory!
    var device: RunningDevice?

    override func setUp() async throws {
        directory = try TemporaryDirectory(prefix: "lifesignal-gpio-fault")
    }

    override func tearDown() async throws {
        await device?.stop()
        device = nil
        directory = nil
    }

    func testARemovedChipIsTheDevicesFaultUntilItIsBackAndThenTheLEDsAreRewritten() async throws {
        let device = try await RunningDevice.started(.forTests(in: directory))
        self.device = device
        let board = device.board
        // Checked in: a steady pattern, so a rewrite that did not happen cannot hide in a blink.
        try await device.checkIn()
        try await waitUntil("the LEDs show checked in") {
            device.device.leds.indicator == .checkedIn && board.ledLevels.contains(true) && board.ledLevels == device.device.leds.levels
        }
        let checkedIn = board.ledLevels

        board.removeChip()
        try await waitUntil("the lost chip is the device's fault") {
            device.state.conditions.contains { $0.kind == .gpioUnavailable }
        }
        let condition = try XCTUnwrap(device.state.conditions.first { $0.kind == .gpioUnavailable })
        XCTAssertTrue(condition.isFault)
        XCTAssertTrue(condition.message.contains("waiting for GPIO simulated chip"), condition.message)
        XCTAssertTrue(condition.message.contains("the chip was removed"), condition.message)
        XCTAssertTrue(device.device.summary.contains("waiting for GPIO"), device.device.summary)
        XCTAssertTrue(device.log.contains("GPIO simulated chip lost"), device.log.all.joined(separator: "\n"))
        let status = try await device.status()
        XCTAssertEqual(status.indicator, "fault")
        XCTAssertEqual(board.ledLevels, [false, false, false], "a removed chip's lines are off")
        XCTAssertEqual(status.leds.map(\.on), [false, false, false], "no LED is reported lit while its chip is gone")

        board.restoreChip()
        try await waitUntil("the fault clears once the chip is back") {
            !device.state.conditions.contains { $0.kind == .gpioUnavailable }
        }
        try await waitUntil("the LEDs show the pattern again") { board.ledLevels == checkedIn }
        XCTAssertEqual(device.device.leds.levels, board.ledLevels, "what the driver believes is what the lines show")
        let indicator = try await device.status().indicator
        XCTAssertEqual(indicator, "checked_in")
    }
}
