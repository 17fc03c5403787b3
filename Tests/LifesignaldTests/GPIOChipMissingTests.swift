import ControlProtocol
import XCTest

/// A configured GPIO chip that does not exist (yet) does not stop the daemon: it stays up,
/// answers on its control socket, says which chip it waits for, and still stores check-ins.
final class GPIOChipMissingTests: XCTestCase {
    func testDaemonWaitsForAMissingChipInsteadOfExiting() throws {
        let chip = "/dev/gpiochip-lifesignal-test-\(getpid())"
        let device = try DaemonHarness(interval: "1h", reminder: "10m", config: """

            [gpio]
            backend = "libgpiod"
            chip = "\(chip)"
            """)
        try device.start()
        let status = try device.status()
        XCTAssertEqual(status.indicator, "fault", "the fault pattern is what the LEDs would show")
        let error = try XCTUnwrap(status.error)
        XCTAssertTrue(error.contains("waiting for GPIO \(chip)"), error)
        XCTAssertTrue(error.contains("no GPIO chips present") || error.contains("no such chip"), error)
        XCTAssertTrue(device.log.contains("waiting for GPIO \(chip)"), device.log)

        // The store works meanwhile: a check-in from the CLI is stored, and the fault stays.
        XCTAssertEqual(try device.ctl(["check-in"]).exitCode, 0)
        let after = try device.status()
        XCTAssertNotNil(after.lastCheckIn)
        XCTAssertTrue(after.error?.contains("waiting for GPIO") == true, after.error ?? "no error")
        XCTAssertEqual(device.stop(), 0, "a waiting daemon stops cleanly")
    }
}
