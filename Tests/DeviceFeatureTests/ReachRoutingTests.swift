import CheckInFeature
import CheckInStoreClient
import CheckInModels
import DeviceConfig
import DeviceFeature
import HealthchecksSyncFeature
import HeartbeatFeature
import TestSupport
import UplinkClient
import UploadFeature
import XCTest

/// The routing that reaches people: a help alert taken by the first of its targets, refused only
/// when every target refuses; the device's own checks following its settings; pings that waited
/// for their checks going once the checks exist; a heartbeat refused for good as a condition.
@MainActor
final class ReachRoutingTests: DeviceTestCase {
    static let alertCheck = "https://hc-ping.com/5b1c3e7a-0d6f-4b8e-9a51-2f4c8d7e6a10"

    /// A device with the healthchecks alert check (and the backend when `backend`), and with the
    /// device's own checks when `managed`; the clients are never called (the tests send answers).
    func makeReachStore(backend: Bool = false, managed: Bool = false,
                        state adjust: (inout DeviceFeature.State) -> Void = { _ in }) -> TestStore<DeviceFeature> {
        var configuration = DeviceConfiguration(storePath: "/tmp/x.sqlite", controlSocket: "/tmp/x.sock")
        configuration.healthchecks = managed
            ? HealthchecksConfiguration(checkInURL: nil, management: HealthchecksManagement(apiKeyFile: "/k"))
            : HealthchecksConfiguration(checkInURL: nil, alertURL: Self.alertCheck)
        if backend { configuration.uplink = UplinkConfiguration(url: "https://api.example.org", tokenFile: "/t") }
        configuration.alert = AlertConfiguration(enabled: true)
        var dependencies = makeDependencies()
        if backend { dependencies.backend = .failing() }
        dependencies.healthchecks = HealthchecksClients(
            checkIns: managed ? .failing(endpoint: "check-in") : nil, heartbeat: managed ? .failing(endpoint: "heartbeat") : nil,
            alert: .failing(endpoint: "alert"), management: managed ? .failing() : nil)
        var state = DeviceFeature.initialState(configuration, chipDescription: Self.chip)
        adjust(&state)
        return TestStore(initialState: state, reducer: DeviceFeature(configuration: configuration, dependencies: dependencies))
    }

    func testTheFirstTargetToTakeAnAlertDeliversItAndASecondAcknowledgementChangesNothing() async {
        let alert = id(7)
        let store = makeReachStore(backend: true) { $0.checkIn.alert.unacknowledged = [alert] }
        XCTAssertEqual(store.state.indicator, .alertSending)
        store.send(.healthchecksAlertUpload(.delegate(.acknowledged([alert]))))
        await store.receive(.checkIn(.alert(.acknowledged([alert])))) {
            $0.checkIn.alert.unacknowledged = []
            $0.checkIn.alert.delivered = alert
        }
        XCTAssertEqual(store.state.indicator, .alertDelivered)
        store.send(.alertUpload(.delegate(.acknowledged([alert]))))
        await store.receive(.checkIn(.alert(.acknowledged([alert]))))  // already delivered: nothing changes
        await testClock.advance(by: .seconds(30))
        await store.receive(.checkIn(.alert(.deliveredDisplayEnded))) { $0.checkIn.alert.delivered = nil }
        await store.finish()
    }

    func testTheDeviceStopsClaimingToSendOnlyWhenEveryTargetRefuses() async {
        let alert = id(7)
        let refusal = UplinkFailure(.permanent, "POST https://hc-ping.com/…6a10/fail answered HTTP 404: not found")
        let backendRefusal = UplinkFailure(.permanent, "POST https://api.example.org/v1/alerts answered HTTP 401: bad token")
        let store = makeReachStore(backend: true) {
            $0.checkIn.alert.unacknowledged = [alert]
            $0.healthchecksAlertUpload?.status = .stopped
            $0.healthchecksAlertUpload?.lastMessage = refusal.message
        }
        // The backend still tries: the alert is still being sent.
        store.send(.healthchecksAlertUpload(.delegate(.failed(refusal))))
        XCTAssertEqual(store.state.indicator, .alertSending)

        let both = makeReachStore(backend: true) {
            $0.checkIn.alert.unacknowledged = [alert]
            $0.healthchecksAlertUpload?.status = .stopped
            $0.healthchecksAlertUpload?.lastMessage = refusal.message
            $0.alertUpload?.status = .stopped
            $0.alertUpload?.lastMessage = backendRefusal.message
        }
        both.send(.alertUpload(.delegate(.failed(backendRefusal))))
        let reasons = "backend: \(backendRefusal.message); healthchecks alert: \(refusal.message)"
        await both.receive(.checkIn(.alert(.sendingRefused(reasons)))) { $0.checkIn.alert.sendingRefused = reasons }
        XCTAssertEqual(both.state.indicator, .fault)
        XCTAssertTrue(both.state.conditions.contains { $0.kind == .alertNotSent && $0.message.contains("404: not found") })
        await both.finish()
    }

    func testTheDevicesOwnChecksFollowTheSettingsAndPingsThatWaitedForThemGoOnceTheyExist() async {
        let store = makeReachStore(managed: true) { $0.checkIn.hasLoadedSettings = true }
        let settings = CheckInSettings(interval: .seconds(16 * 3600), reminder: .seconds(3600))
        store.send(.checkIn(.checkInSettingsResponse(.success(StoredSettings(settings: settings, version: 2, appliedFromConfig: nil))))) {
            $0.checkIn.settings = settings
            $0.checkIn.settingsVersion = 2
        }
        // With the default last-chance grace (15 min): people are told when it ends, so the check
        // goes down then too.
        let plan = CheckInCheckPlan(settings: settings, grace: .seconds(900))
        let wanted = CheckTimings.specs(plan: plan, heartbeat: .seconds(900), slugPrefix: "lifesignal")
        await store.receive(.healthchecksSync(.planChanged(plan))) { $0.healthchecksSync?.wanted = wanted }
        XCTAssertEqual(wanted.first?.timeout, .seconds(15 * 3600))
        XCTAssertEqual(wanted.first?.grace, .seconds(3600 + 900))

        store.send(.healthchecksSync(.delegate(.inStep([]))))
        await store.receive(.healthchecksUpload(.networkChanged))
        await store.receive(.healthchecksHeartbeat(.networkChanged))
        await store.receive(.healthchecksAlertUpload(.networkChanged))
        await store.finish()
    }

    func testAHeartbeatRefusedForGoodIsAConditionButNotAFault() {
        var state = makeReachStore(managed: true).state
        state.healthchecksHeartbeat?.lastError = "POST https://hc-ping.com/…beat answered HTTP 404: not found"
        state.healthchecksHeartbeat?.isRefused = true
        let condition = state.conditions.first { $0.kind == .heartbeatRefused }
        XCTAssertEqual(condition?.isFault, false)
        XCTAssertTrue(condition?.message.contains("404: not found") == true)
        XCTAssertNotEqual(state.indicator, .fault)
        state.healthchecksSync?.status = .refused
        state.healthchecksSync?.lastError = "401: wrong api key"
        XCTAssertTrue(state.conditions.contains { $0.kind == .checksNotInStep && $0.advice.contains("read-write") })
        XCTAssertNotEqual(state.conditionCauses, makeReachStore(managed: true).state.conditionCauses, "a change the log will tell")
    }
}
