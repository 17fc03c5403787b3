public import CheckInModels

/// A check-in a target refused for good, with the target's own message.
public struct RefusedCheckIn: Hashable, Sendable {
    public var record: CheckInRecord
    public var message: String

    public init(record: CheckInRecord, message: String) {
        self.record = record
        self.message = message
    }
}
