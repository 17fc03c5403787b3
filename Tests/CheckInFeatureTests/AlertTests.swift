import CheckInFeature
import CheckInModels
import CheckInStoreClient
import TestSupport
import XCTest

/// The help alert: long press → cancel window → stored → sending → delivered, and every way out.
final class AlertTests: FeatureTestCase {
    var alerts: FakeAlertStore!

    func makeAlertStore(canDeliver: Bool = true, pending: [AlertRecord] = []) -> TestStore<CheckInFeature> {
        alerts = FakeAlertStore(alerts: pending)
        return makeStore(alertStore: alerts.client) {
            $0.alert = AlertState(settings: AlertState.Settings(cancelWindow: .seconds(5), deliveredDisplay: .seconds(30),
                                                                canDeliver: canDeliver))
        }
    }

    /// Holds the button past the long-press time and lets go: the cancel window is open.
    func longPress(_ store: TestStore<CheckInFeature>) async {
        store.send(.buttonPressed) { $0.button = .held }
        await clock.advance(by: .seconds(3))
        await store.receive(.longPressThresholdReached) {
            $0.button = .longPressed
            $0.alert.window = AlertState.Window(requestedAt: Self.start.advanced(by: .seconds(3)), source: .button)
        }
        XCTAssertEqual(store.state.indicator(fault: false), .alertCancelWindow)
        await store.receive(.delegate(.longPressed))
        store.send(.buttonReleased) { $0.button = .released }
        XCTAssertEqual(store.state.indicator(fault: false), .alertCancelWindow, "releasing a long press neither cancels nor checks in")
    }

    /// `lifesignalctl alert send` at the start, and no cancel: the alert is being stored.
    func requestFromTheCLIAndLetTheWindowEnd(_ store: TestStore<CheckInFeature>) async {
        store.send(.alert(.requested(.cli))) {
            $0.alert.window = AlertState.Window(requestedAt: Self.start, source: .cli)
        }
        await clock.advance(by: .seconds(5))
        await store.receive(.alert(.cancelWindowEnded)) {
            $0.alert.window = nil
            $0.alert.isStoring = true
            $0.alert.unsaved = AlertRecord(id: self.id(1), at: Self.start, source: .cli)
        }
    }

    func testALongPressIsStoredWhenTheWindowEndsAndShowsDeliveredOnlyOnceAcknowledged() async {
        let store = makeAlertStore()
        await start(store, expectPhase: .neverCheckedIn)
        await longPress(store)

        await clock.advance(by: .milliseconds(4999))
        XCTAssertEqual(alerts.alerts, [], "nothing is stored inside the window")
        await clock.advance(by: .milliseconds(1))
        let record = AlertRecord(id: id(1), at: Self.start.advanced(by: .seconds(3)), source: .button)
        await store.receive(.alert(.cancelWindowEnded)) {
            $0.alert.window = nil
            $0.alert.isStoring = true
            $0.alert.unsaved = record
        }
        XCTAssertEqual(store.state.indicator(fault: false), .alertSending)
        await store.receive(.alert(.storeResponse(.success(record)))) {
            $0.alert.unsaved = nil
            $0.alert.isStoring = false
            $0.alert.unacknowledged = [record.id]
        }
        await store.receive(.delegate(.alertStored(record)))
        XCTAssertEqual(store.state.indicator(fault: false), .alertSending, "stored is not delivered")
        XCTAssertEqual(store.state.alert.name, "sending")
        XCTAssertEqual(alerts.alerts, [record])
        XCTAssertEqual(fake.writeAttempts, 0, "a long press is never a check-in")

        store.send(.alert(.acknowledged([record.id]))) {
            $0.alert.unacknowledged = []
            $0.alert.delivered = record.id
        }
        XCTAssertEqual(store.state.indicator(fault: false), .alertDelivered)
        await clock.advance(by: .seconds(30))
        await store.receive(.alert(.deliveredDisplayEnded)) { $0.alert.delivered = nil }
        XCTAssertEqual(store.state.indicator(fault: false), .neverCheckedIn)
        await stop(store)
    }

    func testAPressInTheWindowCancelsTheAlertAndIsNotACheckIn() async {
        let store = makeAlertStore()
        await start(store, expectPhase: .neverCheckedIn)
        await longPress(store)
        await clock.advance(by: .seconds(2))

        store.send(.buttonPressed) {
            $0.button = .consumed
            $0.alert.window = nil
        }
        await store.receive(.delegate(.alertCancelled(.button)))
        XCTAssertEqual(store.state.indicator(fault: false), .neverCheckedIn)
        store.send(.buttonReleased) { $0.button = .released }
        await clock.advance(by: .seconds(60))
        XCTAssertEqual(alerts.alerts, [])
        XCTAssertEqual(fake.writeAttempts, 0, "the cancelling press is not a check-in")
        await stop(store)
    }

    func testTheCLIOpensAndCancelsTheWindow() async {
        let store = makeAlertStore()
        await start(store, expectPhase: .neverCheckedIn)
        store.send(.alert(.requested(.cli))) {
            $0.alert.window = AlertState.Window(requestedAt: Self.start, source: .cli)
        }
        store.send(.alert(.requested(.button)))  // already open: the first request stands
        await clock.advance(by: .seconds(4))
        store.send(.alert(.cancelRequested(.cli))) { $0.alert.window = nil }
        await store.receive(.delegate(.alertCancelled(.cli)))
        store.send(.alert(.cancelRequested(.cli)))  // nothing left to cancel
        await clock.advance(by: .seconds(10))
        XCTAssertEqual(alerts.alerts, [])

        // The next press is an ordinary check-in again.
        store.send(.buttonPressed) { $0.button = .held }
        store.send(.buttonReleased) {
            $0.button = .released
            $0.isCheckingIn = true
        }
        let record = CheckInRecord(id: id(1), at: Self.start.advanced(by: .seconds(14)), source: .button)
        await store.receive(.checkInResponse(.success(record))) {
            $0.isCheckingIn = false
            $0.history = [record]
            $0.feedback = .acknowledged
            $0.phase = .checkedIn(self.countdown(remaining: Self.hour * 24, now: .seconds(14)))
        }
        await store.receive(.delegate(.checkInStored(record)))
        await stop(store)
    }

    func testAnAlertThatCannotBeStoredIsKeptNeverShownAsSendingAndStoredOnceTheStoreWrites() async {
        let store = makeAlertStore()
        await start(store, expectPhase: .neverCheckedIn)
        let full = StoreFailure(.full, "disk full")
        alerts.failWrites(with: full)
        await requestFromTheCLIAndLetTheWindowEnd(store)
        await store.receive(.alert(.storeResponse(.failure(full)))) {
            $0.alert.isStoring = false
        }
        XCTAssertNotEqual(store.state.indicator(fault: false), .alertSending)
        await store.receive(.delegate(.alertNotStored(full)))
        XCTAssertEqual(store.state.alert.name, "not_stored")

        // The store writes again: the help request that waited is stored now, not lost.
        alerts.failWrites(with: nil)
        let record = AlertRecord(id: id(1), at: Self.start, source: .cli)
        store.send(.storeWritable) { $0.alert.isStoring = true }
        await store.receive(.alert(.storeResponse(.success(record)))) {
            $0.alert.isStoring = false
            $0.alert.unsaved = nil
            $0.alert.unacknowledged = [record.id]
        }
        await store.receive(.delegate(.alertStored(record)))
        XCTAssertEqual(store.state.indicator(fault: false), .alertSending)
        await stop(store)
    }

    func testWithoutAnUplinkTheAlertIsStoredAndTheDeviceSaysItWasNotSent() async {
        let store = makeAlertStore(canDeliver: false)
        await start(store, expectPhase: .neverCheckedIn)
        await requestFromTheCLIAndLetTheWindowEnd(store)
        let record = AlertRecord(id: id(1), at: Self.start, source: .cli)
        await store.receive(.alert(.storeResponse(.success(record)))) {
            $0.alert.isStoring = false
            $0.alert.unsaved = nil
            $0.alert.unacknowledged = [record.id]
        }
        XCTAssertNotEqual(store.state.indicator(fault: false), .alertSending, "never 'sending' when nothing can send it")
        XCTAssertEqual(store.state.alert.name, "not_sent")
        await store.receive(.delegate(.alertStored(record)))
        await stop(store)
    }

    func testAfterARestartAQueuedAlertShowsSendingUntilAcknowledged() async {
        var earlier = Self.start
        earlier.bootID = "boot-before"
        let queued = AlertRecord(id: CheckInID(high: 2, low: 7), at: earlier, source: .button)
        let store = makeAlertStore(pending: [queued])
        await start(store, expectPhase: .neverCheckedIn)
        XCTAssertEqual(store.state.indicator(fault: false), .neverCheckedIn)

        store.send(.alert(.loadPending))
        await store.receive(.alert(.pendingResponse(.success([queued])))) { $0.alert.unacknowledged = [queued.id] }
        XCTAssertEqual(store.state.indicator(fault: false), .alertSending)

        store.send(.alert(.acknowledged([queued.id]))) {
            $0.alert.unacknowledged = []
            $0.alert.delivered = queued.id
        }
        XCTAssertEqual(store.state.indicator(fault: false), .alertDelivered)
        await clock.advance(by: .seconds(30))
        await store.receive(.alert(.deliveredDisplayEnded)) { $0.alert.delivered = nil }
        await stop(store)
    }

    func testARefusedAlertIsAFaultUntilTheBackendAcknowledgesIt() async {
        let queued = AlertRecord(id: CheckInID(high: 2, low: 8), at: Self.start, source: .button)
        let store = makeAlertStore(pending: [queued])
        await start(store, expectPhase: .neverCheckedIn)
        store.send(.alert(.loadPending))
        await store.receive(.alert(.pendingResponse(.success([queued])))) { $0.alert.unacknowledged = [queued.id] }

        store.send(.alert(.sendingRefused("POST /v1/alerts answered HTTP 401: unknown token"))) {
            $0.alert.sendingRefused = "POST /v1/alerts answered HTTP 401: unknown token"
        }
        XCTAssertNotEqual(store.state.indicator(fault: false), .alertSending, "the device stops claiming to send what the backend refuses")

        store.send(.alert(.acknowledged([queued.id]))) {
            $0.alert.unacknowledged = []
            $0.alert.sendingRefused = nil
            $0.alert.delivered = queued.id
        }
        XCTAssertEqual(store.state.indicator(fault: false), .alertDelivered)
        await stop(store)
    }

    func testAFaultWinsOverSendingButNotOverTheCancelWindowAndCheckInFeedbackWinsForItsMoment() {
        var state = CheckInFeature.State()
        state.phase = .overdue(countdown(remaining: .zero))
        state.alert.unacknowledged = [id(1)]
        state.alert.settings = AlertState.Settings(canDeliver: true)
        XCTAssertEqual(state.indicator(fault: false), .alertSending, "sending wins over overdue")
        XCTAssertEqual(state.indicator(fault: true), .fault, "sending can last for hours offline: a broken device must not hide behind it")
        state.feedback = .acknowledged
        XCTAssertEqual(state.indicator(fault: true), .acknowledged)
        state.feedback = nil
        state.alert.unacknowledged = []
        XCTAssertEqual(state.indicator(fault: true), .fault)
    }
}
