import DeviceConfig
import DeviceFeature
import DeviceLive
import Logging
import TestSupport
import XCTest

/// Building the live dependencies fails early, with the exit code systemd acts on, for what
/// restarting cannot cure (a token file others can read: 78; GPIO lines that cannot be had: 69),
/// and does not fail for what the device waits out (a chip not there yet, a store it cannot open
/// yet: the device shows the fault and carries on).
final class LiveDeviceTests: XCTestCase {
    var directory: TemporaryDirectory!
    let logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }

    override func setUpWithError() throws {
        directory = try TemporaryDirectory(prefix: "lifesignal-live")
    }

    override func tearDown() {
        directory = nil
    }

    private func configuration() -> DeviceConfiguration {
        var configuration = DeviceConfiguration(storePath: directory.file("state/store.sqlite"),
                                                controlSocket: directory.file("run/control.sock"))
        configuration.simulator = SimulatorConfiguration(chatterEdges: 0, terminal: .off)
        return configuration
    }

    private func startupError(_ configuration: DeviceConfiguration) async -> StartupError? {
        do {
            let live = try LiveDevice.make(configuration, logger: logger)
            await live.close()
            return nil
        } catch {
            return error
        }
    }

    func testATokenFileOthersCanReadIsAConfigErrorNamingTheFile() async throws {
        var configuration = configuration()
        let token = try directory.write("token", "secret\n", mode: 0o644)
        configuration.uplink = UplinkConfiguration(url: "https://backend.invalid", tokenFile: token)
        let failure = await startupError(configuration)
        let error = try XCTUnwrap(failure, "the device was built")
        XCTAssertEqual(error.exitCode, 78, error.message)
        XCTAssertTrue(error.message.contains(token), error.message)
    }

    func testAMissingTokenFileIsAConfigErrorNamingTheFile() async throws {
        var configuration = configuration()
        configuration.uplink = UplinkConfiguration(url: "https://backend.invalid", tokenFile: directory.file("absent"))
        let failure = await startupError(configuration)
        let error = try XCTUnwrap(failure, "the device was built")
        XCTAssertEqual(error.exitCode, 78, error.message)
        XCTAssertTrue(error.message.contains(directory.file("absent")), error.message)
    }

    func testAChipThatIsNotThereYetIsWaitedForNotAStartupError() async throws {
        var configuration = configuration()
        configuration.gpio = GPIOConfiguration(backend: .libgpiod, chip: directory.file("gpiochip7"))
        let live = try LiveDevice.make(configuration, logger: logger)
        XCTAssertNil(live.simulator)
        XCTAssertEqual(live.dependencies.gpio.chipDescription, directory.file("gpiochip7"))
        XCTAssertThrowsError(try live.dependencies.gpio.connect(), "still no chip")
        XCTAssertThrowsError(try live.dependencies.gpio.setLED(0, true)) { error in
            XCTAssertTrue("\(error)".contains("waiting for GPIO"), "\(error)")
        }
        await live.close()
    }

    func testAChipPathThatIsNotAGPIOChipIsUnavailableWithExit69NamingIt() async throws {
        var configuration = configuration()
        configuration.gpio = GPIOConfiguration(backend: .libgpiod, chip: "/dev/null")
        let failure = await startupError(configuration)
        let error = try XCTUnwrap(failure, "the device was built")
        XCTAssertEqual(error.exitCode, 69, error.message)
        XCTAssertTrue(error.message.contains("/dev/null"), error.message)
    }

    func testAStoreThatCannotBeOpenedYetDoesNotStopTheStart() async throws {
        var configuration = configuration()
        configuration.storePath = "/proc/lifesignal-cannot-be-here/store.sqlite"
        let live = try LiveDevice.make(configuration, logger: logger)
        do {
            _ = try await live.dependencies.store.maintenance.probe()
            XCTFail("a store under /proc was opened")
        } catch {
            XCTAssertTrue(error.message.contains("/proc/lifesignal-cannot-be-here"), error.message)
        }
        await live.close()
    }

    func testAnOfflineDeviceHasNoUplinkClientsAndTheSimulatedBoardByDefault() async throws {
        let live = try LiveDevice.make(configuration(), logger: logger)
        XCTAssertNil(live.dependencies.backend)
        XCTAssertNil(live.dependencies.healthchecks)
        XCTAssertTrue(live.transports.isEmpty, "no HTTP thread without an uplink")
        XCTAssertNotNil(live.simulator)
        XCTAssertEqual(live.dependencies.gpio.chipDescription, "simulated chip")
        await live.close()
    }

    func testAConfiguredUplinkShowsItsURLAndHealthchecksItsPingURLShortened() async throws {
        var configuration = configuration()
        let token = try directory.write("token", "secret\n", mode: 0o600)
        configuration.uplink = UplinkConfiguration(url: "https://backend.example/api", tokenFile: token)
        configuration.healthchecks = HealthchecksConfiguration(checkInURL: "https://hc-ping.com/5b1c3e7a-0d6f-4b8e-9a51-2f4c8d7e6a10")
        let live = try LiveDevice.make(configuration, logger: logger)
        XCTAssertEqual(live.dependencies.backend?.endpoint, "https://backend.example/api")
        let shown = try XCTUnwrap(live.dependencies.healthchecks?.checkIns?.endpoint)
        XCTAssertFalse(shown.contains("5b1c3e7a-0d6f-4b8e-9a51-2f4c8d7e6a10"), "the ping URL is a secret: \(shown)")
        XCTAssertNil(live.dependencies.healthchecks?.heartbeat)
        XCTAssertEqual(live.transports.count, 4, "the backend's two threads (uploads, the long poll), healthchecks' own, and "
                       + "the responders' list, so a slow list never delays an upload")
        XCTAssertEqual(live.dependencies.responderSources.keys.sorted(), ["backend"],
                       "healthchecks lists no responders without an API key")
        await live.close()
    }
}
