/// One row a target refused by id for good (e.g. a record it cannot accept), with its message.
public struct RefusedItem: Hashable, Sendable {
    public var id: CheckInID
    public var message: String

    public init(id: CheckInID, message: String) {
        self.id = id
        self.message = message
    }
}
