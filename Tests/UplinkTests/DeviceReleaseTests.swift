import CheckInFeature
import DeviceClockLive
import DeviceConfig
@testable import DeviceRuntime
import Foundation
import Logging
import XCTest

/// A device with an uplink lets go of everything once it is stopped and dropped: no reference cycle
/// keeps the feature's store, the LED driver or the uploaders alive. (A cycle through the settings
/// sync did; the daemon then exited 1 under LeakSanitizer, which saw the leftovers at exit.)
@MainActor
final class DeviceReleaseTests: XCTestCase {
    func testAStoppedDeviceWithAnUplinkIsReleasedWithEverythingItStarted() async throws {
        let backend = try LoopbackBackend()
        let tokenFile = backend.directory.appendingPathComponent("token").path
        try "\(LoopbackBackend.token)\n".write(toFile: tokenFile, atomically: false, encoding: .utf8)
        XCTAssertEqual(chmod(tokenFile, 0o600), 0)
        let state = backend.directory.appendingPathComponent("device").path
        var configuration = DeviceConfiguration(storePath: state + "/store.sqlite", controlSocket: state + "/control.sock")
        configuration.simulator = SimulatorConfiguration(chatterEdges: 0, terminal: .off)
        configuration.acknowledgement = .milliseconds(20)
        configuration.uplink = UplinkConfiguration(url: backend.server.baseURL, tokenFile: tokenFile)

        var device: Device? = try Device(configuration: configuration, clock: .live(),
                                         logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() })
        try device?.start()
        // A stored and uploaded check-in: the uploader, the settings sync and the LEDs have all run.
        try await waitUntil("the store is loaded") { device?.store.state.hasLoadedSettings == true }
        device?.store.send(.checkInRequested(.cli))
        try await waitUntil("the check-in is uploaded") { try backend.storedIDs().count == 1 }

        weak let store = device?.store
        weak let leds = device?.leds
        weak let deliveries = device?.deliveries
        weak let uploader = device?.uploader
        XCTAssertNotNil(store)
        XCTAssertNotNil(uploader)
        await device?.stop()
        device = nil
        // Tasks that were waiting on the uplink may take a moment to see the stop.
        try await waitUntil("the stopped device's parts are released") {
            store == nil && leds == nil && deliveries == nil && uploader == nil
        }
        XCTAssertNil(store, "the check-in feature's store")
        XCTAssertNil(leds, "the LED driver")
        XCTAssertNil(deliveries, "the delivery services (heartbeats, network watcher)")
        XCTAssertNil(uploader, "the check-in uploader")
    }
}
