import CheckInModels
import DeviceConfig
import XCTest

/// `[device]` and `[dependents]`: a person's device by default; a watcher's dependents with one
/// source each, and every mistake refused with file, line and key.
final class DependentsConfigTests: XCTestCase {
    private func load(_ text: String) -> Result<DeviceConfiguration, ConfigErrors> {
        DeviceConfiguration.load(text: text, path: "/etc/lifesignal/lifesignald.toml", environment: ["HOME": "/home/ada"])
    }

    private func problems(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> String {
        switch load(text) {
        case .success(let configuration):
            XCTFail("expected problems, loaded \(configuration.device) \(configuration.dependents)", file: file, line: line)
            return ""
        case .failure(let errors):
            return "\(errors)"
        }
    }

    private let broker = "[mqtt]\nhost = \"broker.lan\"\n"

    func testADeviceIsAPersonsWithNoDependentsUnlessToldOtherwise() throws {
        let configuration = try load("").get()
        XCTAssertEqual(configuration.device, DeviceRoleConfiguration(role: .person, name: nil))
        XCTAssertEqual(configuration.dependents, DependentsConfiguration())
    }

    func testAWatchersDependentsAreReadInOrderWithTheirSources() throws {
        let configuration = try load(broker + """
            [uplink]
            url = "https://api.example.org"
            token_file = "/etc/lifesignal/token"

            [device]
            role = "watcher"
            name = "Anna"

            [dependents]
            poll_interval = "2m"
            confirmation_window = "3s"
            healthchecks_read_key_file = "/etc/lifesignal/hc-read-key"

            [dependents.mum]
            mqtt = "lifesignal/0123456789ab"
            heartbeat = "90s"

            [dependents.gran]
            name = "Granny Smith"
            backend = "dev-7"

            [dependents.uncle]
            healthchecks = "uncle-check-in"
            """).get()
        XCTAssertEqual(configuration.device, DeviceRoleConfiguration(role: .watcher, name: "Anna"))
        XCTAssertEqual(configuration.dependents.entries, [
            DependentEntry(name: "mum", source: .mqtt(baseTopic: "lifesignal/0123456789ab"), heartbeat: .seconds(90), fromConfig: true),
            DependentEntry(name: "Granny Smith", source: .backend(id: "dev-7"), heartbeat: DependentEntry.defaultHeartbeat, fromConfig: true),
            DependentEntry(name: "uncle", source: .healthchecks(check: "uncle-check-in"), heartbeat: DependentEntry.defaultHeartbeat,
                           fromConfig: true),
        ])
        XCTAssertEqual(configuration.dependents.pollInterval, .seconds(120))
        XCTAssertEqual(configuration.dependents.confirmationWindow, .seconds(3))
        XCTAssertEqual(configuration.dependents.healthchecksReadKeyFile, "/etc/lifesignal/hc-read-key")
    }

    func testEachMistakeIsRefusedWithItsPlace() {
        XCTAssertTrue(problems("[device]\nrole = \"carer\"\n").contains("lifesignald.toml:2:8: device.role: \"carer\" is not allowed"))
        XCTAssertTrue(problems("[device]\nrole = \"watcher\"\n").contains(
            "device.role: a watcher needs a way to hear of its dependents: [mqtt]"))
        XCTAssertTrue(problems(broker + "[device]\nrole = \"watcher\"\n[dependents.mum]\nheartbeat = \"1m\"\n").contains(
            "dependents.mum: [dependents.mum] needs one source: mqtt = "))
        XCTAssertTrue(problems(broker + "[device]\nrole = \"watcher\"\n[dependents.mum]\nmqtt = \"a/b\"\nbackend = \"x\"\n").contains(
            "[dependents.mum] has mqtt and backend; a dependent has exactly one source"))
        XCTAssertTrue(problems(broker + "[device]\nrole = \"watcher\"\n[dependents.mum]\nmqtt = \"lifesignal/+\"\n").contains(
            "contains a wildcard"))
        XCTAssertTrue(problems(broker + "[device]\nrole = \"watcher\"\n[dependents.mum]\nbackend = \"dev-1\"\n").contains(
            "dependents.mum.backend: a dependent on the backend needs this device's [uplink]"))
        XCTAssertTrue(problems(broker + "[device]\nrole = \"watcher\"\n[dependents.mum]\nhealthchecks = \"c\"\n").contains(
            "needs [dependents] healthchecks_read_key_file"))
        XCTAssertTrue(problems(broker + "[device]\nrole = \"watcher\"\n[dependents.mum]\nmqtt = \"a/b\"\nhartbeat = \"1m\"\n").contains(
            "did you mean 'heartbeat'?"))
        XCTAssertTrue(problems(broker + "[device]\nrole = \"watcher\"\n[dependents.a]\nname = \"Mum\"\nmqtt = \"a/b\"\n"
                               + "[dependents.b]\nname = \"mum\"\nmqtt = \"c/d\"\n").contains("another dependent is also called mum"))
        XCTAssertTrue(problems(broker + "[dependents.mum]\nmqtt = \"a/b\"\n").contains(
            "[dependents] is for a watcher, and this device's [device] role is \"person\""))
        XCTAssertTrue(problems(broker + "[device]\nrole = \"both\"\n[dependents]\npoll_interval = \"1s\"\n").contains(
            "dependents.poll_interval"))
    }

    func testADependentsLightIsAnLEDOfItsOwn() throws {
        let leds = "[leds]\norder = [\"green\", \"amber\", \"red\", \"mum\"]\n[leds.mum]\ncolour = \"white\"\nline = \"GPIO19\"\n"
        let watcher = broker + leds + "[device]\nrole = \"watcher\"\n[dependents.mum]\nmqtt = \"a/b\"\n"
        XCTAssertEqual(try load(watcher + "led = \"mum\"\n").get().dependents.entries.first?.led, "mum")
        XCTAssertTrue(problems(watcher + "led = \"dad\"\n").contains("dependents.mum.led: no LED named \"dad\" in leds.order"))
        XCTAssertTrue(problems(watcher + "led = \"red\"\n").contains("the LED red is also used by patterns."))
        XCTAssertTrue(problems(watcher + "led = \"mum\"\n[dependents.dad]\nmqtt = \"c/d\"\nled = \"mum\"\n").contains(
            "dependents.dad.led: the LED mum already shows another dependent"))
    }
}

