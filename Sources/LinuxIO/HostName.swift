import Glibc

/// The machine's host name, reduced to what an id may hold (letters, digits, '-', '_', '.', at
/// most 64): an MQTT device id where there is no machine id, a watcher's name where the config
/// gives none.
public func currentHostName() -> String? {
    var buffer = [CChar](repeating: 0, count: 256)
    guard gethostname(&buffer, buffer.count - 1) == 0 else { return nil }
    let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    let kept = String(name.unicodeScalars.filter { scalar in
        scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || "-_.".unicodeScalars.contains(scalar))
    }.prefix(64))
    return kept.isEmpty ? nil : kept
}
