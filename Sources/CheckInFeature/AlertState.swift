public import CheckInModels
public import CheckInStoreClient
public import LEDLanguage

/// The help alert: a long press (or `lifesignalctl alert send`) opens a cancel window; a press in
/// the window cancels; when it ends the alert is stored durably and then sent. The LEDs never claim
/// more than is true: "sending" until the backend acknowledged the alert, "delivered" only after.
public struct AlertState: Equatable, Sendable {
    /// `[alert]` as configured.
    public struct Settings: Equatable, Sendable {
        /// How long a press can still cancel the alert.
        public var cancelWindow: Duration
        /// How long the delivered pattern shows once the backend acknowledged the alert.
        public var deliveredDisplay: Duration
        /// Something can deliver an alert (the backend, a healthchecks alert check). Without, an
        /// alert cannot reach anyone: it is stored, and the device says it was not sent.
        public var canDeliver: Bool

        public init(cancelWindow: Duration = .seconds(5), deliveredDisplay: Duration = .seconds(30), canDeliver: Bool) {
            self.cancelWindow = cancelWindow
            self.deliveredDisplay = deliveredDisplay
            self.canDeliver = canDeliver
        }
    }

    /// The open cancel window: the request for help it will send.
    public struct Window: Equatable, Sendable {
        /// When help was asked for; the alert carries this time.
        public var requestedAt: DeviceInstant
        public var source: AlertSource

        public init(requestedAt: DeviceInstant, source: AlertSource) {
            self.requestedAt = requestedAt
            self.source = source
        }
    }

    /// Nil = alerts are off (`[alert] enabled = false`): a long press only shows its feedback.
    public var settings: Settings?
    public var window: Window?
    /// The durable write of an alert is in progress.
    public var isStoring = false
    /// Stored alerts the backend has not acknowledged yet, oldest first.
    public var unacknowledged: [AlertID] = []
    /// An alert whose durable write failed: kept here and stored again once the store can write.
    public var unsaved: AlertRecord?
    /// The backend refused the alert for good (permanent failure), with its message: the alert
    /// stays queued, but the device no longer claims to be sending it; the fault says why.
    public var sendingRefused: String?
    /// The alert the backend acknowledged last, while the delivered pattern shows.
    public var delivered: AlertID?

    public init(settings: Settings? = nil) {
        self.settings = settings
    }

    /// Whether the LEDs show "sending": stored (or being stored) and not acknowledged, with a
    /// target that has not refused it.
    public var isSending: Bool {
        isStoring || (settings?.canDeliver == true && !unacknowledged.isEmpty && sendingRefused == nil)
    }

    /// The alert's pattern, if one should show (these win over everything but check-in feedback).
    public var indicator: Indicator? {
        if window != nil { return .alertCancelWindow }
        if isSending { return .alertSending }
        if delivered != nil { return .alertDelivered }
        return nil
    }

    /// For status and logs: off, idle, cancel_window, storing, sending, not_sent, delivered.
    public var name: String {
        if settings == nil { return "off" }
        if window != nil { return "cancel_window" }
        if isStoring { return "storing" }
        if unsaved != nil { return "not_stored" }
        if isSending { return "sending" }
        if !unacknowledged.isEmpty { return "not_sent" }
        if delivered != nil { return "delivered" }
        return "idle"
    }
}

extension CheckInFeature {
    /// Everything that happens to the help alert.
    public enum AlertAction: Equatable, Sendable {
        /// Help asked for (the long press, or `lifesignalctl alert send`): opens the cancel window.
        case requested(AlertSource)
        /// A press during the window, or `lifesignalctl alert cancel`.
        case cancelRequested(AlertSource)
        /// The cancel window ended without a cancel: store the alert, then send it.
        case cancelWindowEnded
        /// The alert's durable write finished, or failed.
        case storeResponse(Result<AlertRecord, StoreFailure>)
        /// (Re)load the alerts still waiting for the backend (start-up, a store that opened late).
        case loadPending
        case pendingResponse(Result<[AlertRecord], StoreFailure>)
        /// The backend acknowledged (stored) these alerts.
        case acknowledged([AlertID])
        /// The backend refused to take the alert (a permanent failure, with its message); it stays queued.
        case sendingRefused(String)
        /// The delivered pattern has shown long enough.
        case deliveredDisplayEnded
    }
}
