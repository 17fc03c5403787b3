struct ValueDecoder: Decoder {
    let value: JSONValue
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case let .object(members) = value else { throw mismatch([String: JSONValue].self, value, codingPath) }
        return KeyedDecodingContainer(KeyedDecoder<Key>(members: members, codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case let .array(items) = value else { throw mismatch([JSONValue].self, value, codingPath) }
        return UnkeyedDecoder(items: items, codingPath: codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        SingleValueDecoder(value: value, codingPath: codingPath)
    }
}

private func mismatch(_ type: Any.Type, _ value: JSONValue, _ codingPath: [any CodingKey]) -> DecodingError {
    if case .null = value {
        return .valueNotFound(type, DecodingError.Context(
            codingPath: codingPath, debugDescription: "Expected \(type) value but found null instead."))
    }
    return .typeMismatch(type, DecodingError.Context(
        codingPath: codingPath, debugDescription: "Expected to decode \(type) but found \(value.kindName) instead."))
}

/// `value` as a `T`: primitives directly, anything else through its own `init(from:)`.
private func decodeValue<T: Decodable>(_ type: T.Type, _ value: JSONValue, _ codingPath: [any CodingKey]) throws -> T {
    switch type {
    case is String.Type:
        guard case let .string(text) = value else { throw mismatch(type, value, codingPath) }
        return text as! T
    case is Bool.Type:
        guard case let .bool(flag) = value else { throw mismatch(type, value, codingPath) }
        return flag as! T
    case is Int.Type: return try integer(Int.self, value, codingPath) as! T
    case is Int64.Type: return try integer(Int64.self, value, codingPath) as! T
    case is Int32.Type: return try integer(Int32.self, value, codingPath) as! T
    case is Int16.Type: return try integer(Int16.self, value, codingPath) as! T
    case is Int8.Type: return try integer(Int8.self, value, codingPath) as! T
    case is UInt.Type: return try integer(UInt.self, value, codingPath) as! T
    case is UInt64.Type: return try integer(UInt64.self, value, codingPath) as! T
    case is UInt32.Type: return try integer(UInt32.self, value, codingPath) as! T
    case is UInt16.Type: return try integer(UInt16.self, value, codingPath) as! T
    case is UInt8.Type: return try integer(UInt8.self, value, codingPath) as! T
    case is Double.Type: return try floatingPoint(value, codingPath) as! T
    case is Float.Type:
        let number = try floatingPoint(value, codingPath)
        guard abs(number) <= Double(Float.greatestFiniteMagnitude) else { throw notRepresentable(value, Float.self, codingPath) }
        return Float(number) as! T
    default:
        return try T(from: ValueDecoder(value: value, codingPath: codingPath))
    }
}

/// An integer from its literal; `2.0` or `1e3` only when they are exactly a whole number, never
/// rounded, and anything outside the type's range is an error (never clamped or wrapped).
private func integer<T: FixedWidthInteger>(_ type: T.Type, _ value: JSONValue, _ codingPath: [any CodingKey]) throws -> T {
    guard case let .number(text) = value else { throw mismatch(type, value, codingPath) }
    if let number = T(text) { return number }
    if text.utf8.contains(where: { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }),
       let number = Double(text), let exact = T(exactly: number) {
        return exact
    }
    throw notRepresentable(value, type, codingPath)
}

private func floatingPoint(_ value: JSONValue, _ codingPath: [any CodingKey]) throws -> Double {
    guard case let .number(text) = value else { throw mismatch(Double.self, value, codingPath) }
    guard let number = Double(text), number.isFinite else { throw notRepresentable(value, Double.self, codingPath) }
    return number
}

private func notRepresentable(_ value: JSONValue, _ type: Any.Type, _ codingPath: [any CodingKey]) -> DecodingError {
    let text = if case let .number(text) = value { text } else { value.kindName }
    return .dataCorrupted(DecodingError.Context(
        codingPath: codingPath, debugDescription: "Number \(text) does not fit in \(type)."))
}

struct KeyedDecoder<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let members: [String: JSONValue]
    let codingPath: [any CodingKey]

    init(members: [(key: String, value: JSONValue)], codingPath: [any CodingKey]) {
        // The last of two members with the same name wins.
        self.members = Dictionary(members.map { ($0.key, $0.value) }, uniquingKeysWith: { _, last in last })
        self.codingPath = codingPath
    }

    var allKeys: [Key] { members.keys.compactMap { Key(stringValue: $0) } }

    func contains(_ key: Key) -> Bool { members[key.stringValue] != nil }

    private func member(_ key: Key) throws -> JSONValue {
        guard let value = members[key.stringValue] else {
            throw DecodingError.keyNotFound(key, DecodingError.Context(
                codingPath: codingPath, debugDescription: "No value associated with key \(key.stringValue)."))
        }
        return value
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        if case .null = try member(key) { return true }
        return false
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try decodeValue(type, try member(key), codingPath + [key])
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
        -> KeyedDecodingContainer<NestedKey> {
        try ValueDecoder(value: try member(key), codingPath: codingPath + [key]).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try ValueDecoder(value: try member(key), codingPath: codingPath + [key]).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        ValueDecoder(value: members[JSONKey.super.stringValue] ?? .null, codingPath: codingPath + [JSONKey.super])
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        ValueDecoder(value: members[key.stringValue] ?? .null, codingPath: codingPath + [key])
    }
}

struct UnkeyedDecoder: UnkeyedDecodingContainer {
    let items: [JSONValue]
    let codingPath: [any CodingKey]
    private(set) var currentIndex = 0

    init(items: [JSONValue], codingPath: [any CodingKey]) {
        self.items = items
        self.codingPath = codingPath
    }

    var count: Int? { items.count }
    var isAtEnd: Bool { currentIndex >= items.count }

    private var path: [any CodingKey] { codingPath + [JSONKey(intValue: currentIndex)] }

    private func next(_ type: Any.Type) throws -> JSONValue {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(type, DecodingError.Context(
                codingPath: path, debugDescription: "The array has no more items (it has \(items.count))."))
        }
        return items[currentIndex]
    }

    mutating func decodeNil() throws -> Bool {
        guard case .null = try next(Never.self) else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let decoded = try decodeValue(type, try next(type), path)
        currentIndex += 1
        return decoded
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        let container = try ValueDecoder(value: try next([String: JSONValue].self), codingPath: path).container(keyedBy: type)
        currentIndex += 1
        return container
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let container = try ValueDecoder(value: try next([JSONValue].self), codingPath: path).unkeyedContainer()
        currentIndex += 1
        return container
    }

    mutating func superDecoder() throws -> any Decoder {
        let decoder = ValueDecoder(value: try next(JSONValue.self), codingPath: path)
        currentIndex += 1
        return decoder
    }
}

struct SingleValueDecoder: SingleValueDecodingContainer {
    let value: JSONValue
    let codingPath: [any CodingKey]

    func decodeNil() -> Bool {
        if case .null = value { return true }
        return false
    }

    func decode<T: Decodable>(_ type: T.Type) throws -> T { try decodeValue(type, value, codingPath) }
}
