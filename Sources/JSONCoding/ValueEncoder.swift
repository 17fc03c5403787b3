/// One value under construction. Containers are reference types so that a nested container (or
/// a child's encoder) fills its parent's slot in place, as `Encoder`'s contract expects; the tree
/// becomes a `JSONValue` once the top-level `encode(to:)` returns.
final class EncodingBox {
    var value: JSONValue?
    var object: ObjectBox?
    var array: ArrayBox?

    func finished() -> JSONValue {
        if let object {
            return .object(object.keys.map { ($0, object.members[$0]!.finished()) })
        }
        if let array {
            return .array(array.items.map { $0.finished() })
        }
        // A type that encodes nothing at all is an empty object, as with Foundation's encoder.
        return value ?? .object([])
    }

    func objectBox() -> ObjectBox {
        if let object { return object }
        let object = ObjectBox()
        self.object = object
        return object
    }

    func arrayBox() -> ArrayBox {
        if let array { return array }
        let array = ArrayBox()
        self.array = array
        return array
    }
}

final class ObjectBox {
    var keys: [String] = []
    var members: [String: EncodingBox] = [:]

    /// The slot for `key`; encoding a key twice replaces its value and keeps its first place.
    func slot(_ key: String) -> EncodingBox {
        let box = EncodingBox()
        if members.updateValue(box, forKey: key) == nil { keys.append(key) }
        return box
    }
}

final class ArrayBox {
    var items: [EncodingBox] = []

    func slot() -> EncodingBox {
        let box = EncodingBox()
        items.append(box)
        return box
    }
}

struct ValueEncoder: Encoder {
    let box: EncodingBox
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(KeyedEncoder(object: box.objectBox(), codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        UnkeyedEncoder(array: box.arrayBox(), codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { SingleValueEncoder(box: box, codingPath: codingPath) }
}

/// The JSON for one primitive, or nil when `value` is not one (then it encodes itself).
private func primitive(_ value: some Encodable, _ codingPath: [any CodingKey]) throws -> JSONValue? {
    switch value {
    case let text as String: return .string(text)
    case let flag as Bool: return .bool(flag)
    case let number as Int: return .number(String(number))
    case let number as Int64: return .number(String(number))
    case let number as Int32: return .number(String(number))
    case let number as Int16: return .number(String(number))
    case let number as Int8: return .number(String(number))
    case let number as UInt: return .number(String(number))
    case let number as UInt64: return .number(String(number))
    case let number as UInt32: return .number(String(number))
    case let number as UInt16: return .number(String(number))
    case let number as UInt8: return .number(String(number))
    case let number as Double: return try floatingPoint(number, codingPath)
    case let number as Float: return try floatingPoint(Double(number), codingPath)
    default: return nil
    }
}

private func floatingPoint(_ number: Double, _ codingPath: [any CodingKey]) throws -> JSONValue {
    guard number.isFinite else {
        throw EncodingError.invalidValue(number, EncodingError.Context(
            codingPath: codingPath, debugDescription: "\(number) cannot be written as a JSON number"))
    }
    // Whole numbers without a fraction, as JSON peers expect ("3", not "3.0").
    if number == number.rounded(), abs(number) < 9_007_199_254_740_992 { return .number(String(Int64(number))) }
    return .number(number.description)
}

private func encodeInto(_ value: some Encodable, into box: EncodingBox, codingPath: [any CodingKey]) throws {
    if let json = try primitive(value, codingPath) {
        box.value = json
    } else {
        try value.encode(to: ValueEncoder(box: box, codingPath: codingPath))
    }
}

struct KeyedEncoder<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let object: ObjectBox
    let codingPath: [any CodingKey]

    mutating func encodeNil(forKey key: Key) throws { object.slot(key.stringValue).value = .null }
    mutating func encode(_ value: Bool, forKey key: Key) throws { object.slot(key.stringValue).value = .bool(value) }
    mutating func encode(_ value: String, forKey key: Key) throws { object.slot(key.stringValue).value = .string(value) }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws { try encodeAny(value, key) }

    private func encodeAny(_ value: some Encodable, _ key: Key) throws {
        try encodeInto(value, into: object.slot(key.stringValue), codingPath: codingPath + [key])
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
        -> KeyedEncodingContainer<NestedKey> {
        KeyedEncodingContainer(KeyedEncoder<NestedKey>(object: object.slot(key.stringValue).objectBox(), codingPath: codingPath + [key]))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        UnkeyedEncoder(array: object.slot(key.stringValue).arrayBox(), codingPath: codingPath + [key])
    }

    mutating func superEncoder() -> any Encoder {
        ValueEncoder(box: object.slot(JSONKey.super.stringValue), codingPath: codingPath + [JSONKey.super])
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        ValueEncoder(box: object.slot(key.stringValue), codingPath: codingPath + [key])
    }
}

struct UnkeyedEncoder: UnkeyedEncodingContainer {
    let array: ArrayBox
    let codingPath: [any CodingKey]
    var count: Int { array.items.count }

    private var nextPath: [any CodingKey] { codingPath + [JSONKey(intValue: count)] }

    mutating func encodeNil() throws { array.slot().value = .null }
    mutating func encode(_ value: Bool) throws { array.slot().value = .bool(value) }
    mutating func encode(_ value: String) throws { array.slot().value = .string(value) }
    mutating func encode<T: Encodable>(_ value: T) throws { try encodeAny(value) }

    private func encodeAny(_ value: some Encodable) throws {
        let path = nextPath
        try encodeInto(value, into: array.slot(), codingPath: path)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let path = nextPath
        return KeyedEncodingContainer(KeyedEncoder<NestedKey>(object: array.slot().objectBox(), codingPath: path))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let path = nextPath
        return UnkeyedEncoder(array: array.slot().arrayBox(), codingPath: path)
    }

    mutating func superEncoder() -> any Encoder {
        let path = nextPath
        return ValueEncoder(box: array.slot(), codingPath: path)
    }
}

struct SingleValueEncoder: SingleValueEncodingContainer {
    let box: EncodingBox
    let codingPath: [any CodingKey]

    mutating func encodeNil() throws { box.value = .null }
    mutating func encode(_ value: Bool) throws { box.value = .bool(value) }
    mutating func encode(_ value: String) throws { box.value = .string(value) }
    mutating func encode<T: Encodable>(_ value: T) throws { try encodeAny(value) }

    private func encodeAny(_ value: some Encodable) throws {
        try encodeInto(value, into: box, codingPath: codingPath)
    }
}
