/// A problem to tell the person or the operator about (the seed's `error` / alert).
public struct DeviceError: Hashable, Sendable, CustomStringConvertible {
    public enum Kind: String, Hashable, Sendable {
        /// A check-in could not be stored: it was NOT acknowledged.
        case checkInNotStored = "check_in_not_stored"
        /// The store could not be read at start-up.
        case storeUnavailable = "store_unavailable"
        /// Settings were changed in memory but could not be saved.
        case settingsNotSaved = "settings_not_saved"
        /// A settings selection was refused.
        case settingsRejected = "settings_rejected"
        /// The database file was damaged, moved aside (never deleted) and a fresh one started:
        /// the device works, but its earlier check-ins are only in the moved file.
        case storeReplaced = "store_replaced"
        /// The GPIO chip is missing or went away: no button, no LEDs, until it is back.
        case gpioUnavailable = "gpio_unavailable"
        /// A help alert could not be stored: it was NOT sent.
        case alertNotStored = "alert_not_stored"
        /// A help alert is stored but cannot be sent (no uplink, or the backend refused it).
        case alertNotSent = "alert_not_sent"
    }

    public var kind: Kind
    public var message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    /// Faults mean the device cannot keep its word: the LEDs show the fault pattern.
    public var isFault: Bool {
        switch kind {
        case .checkInNotStored, .storeUnavailable, .settingsNotSaved, .gpioUnavailable, .alertNotStored, .alertNotSent: true
        case .settingsRejected, .storeReplaced: false
        }
    }

    public var description: String { message }
}
