import CheckInStoreLive
import ComposableCore
import DeviceConfig
import DeviceFeature
@testable import DeviceRuntime
import GPIOSimulated
import LEDDriver
import TestSupport
import XCTest

/// A stopped device lets go of everything: no reference cycle keeps the feature's store, the LED
/// driver, the store's owner (and its thread and file) or the board alive once the daemon's service
/// tree has shut down and the device is dropped. (A cycle through the settings sync once did; the
/// daemon then exited 1 under LeakSanitizer, which saw the leftovers at exit.)
@MainActor
final class ReleaseTests: XCTestCase {
    func testAStoppedDeviceWithAnUplinkIsReleasedWithEverythingItStarted() async throws {
        let directory = try TemporaryDirectory(prefix: "lifesignal-release")
        let backend = try LoopbackBackend()
        var configuration = DeviceConfiguration.forTests(in: directory)
        try configuration.upload(to: backend)
        configuration.alert.enabled = true

        var running: RunningDevice? = try await RunningDevice.started(configuration)
        // A stored and uploaded check-in: the uploaders, the settings sync and the LEDs have all run.
        try await running?.checkIn()
        try await waitUntil("the check-in is uploaded") { try backend.storedIDs().count == 1 }
        try await waitUntil("the settings were synced") {
            backend.server.stats.requestsByOperation["GET /v1/settings"] ?? 0 >= 1
        }

        weak let device = running?.device
        weak let store = running?.store
        weak let leds = running?.device.leds
        weak let reporter = running?.device.reporter
        weak let owner = running?.storeOwner
        weak let board = running?.board
        XCTAssertNotNil(store)
        XCTAssertNotNil(owner)
        await running?.stop()
        running = nil
        // Tasks that were waiting on the uplink may take a moment to see the stop.
        try await waitUntil("the stopped device's parts are released") {
            device == nil && store == nil && leds == nil && reporter == nil && owner == nil && board == nil
        }
        XCTAssertNil(device, "the device")
        XCTAssertNil(store, "the device feature's store")
        XCTAssertNil(leds, "the LED driver")
        XCTAssertNil(reporter, "the status reporter")
        XCTAssertNil(owner, "the check-in store's owner (its thread and file)")
        XCTAssertNil(board, "the simulated board")
    }
}
