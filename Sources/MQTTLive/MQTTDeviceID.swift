import Glibc
import LinuxIO

/// The device's id on the broker when `[mqtt] device_id` does not set one: stable for this
/// installation, different on every other, and not the machine id itself (systemd asks that the
/// machine id not be shown to others as it is: here it is hashed with this program's own prefix).
public enum MQTTDeviceID {
    /// 12 hex digits from /etc/machine-id; the host name where there is none (a container, say).
    public static func derived(machineIDPath: String = "/etc/machine-id") -> String {
        let text = (try? readRegularFile(machineIDPath, limit: 4096).get()).map { String(decoding: $0, as: UTF8.self) } ?? ""
        let machineID = text.filter(\.isHexDigit)
        guard machineID.count >= 32 else { return hostName() }
        return String(hash("lifesignal-mqtt:" + machineID), radix: 16).leftPadded(to: 16).suffix(12).description
    }

    /// FNV-1a, 64 bits: enough to keep a home's devices apart; not a secret.
    static func hash(_ text: String) -> UInt64 {
        var value: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            value ^= UInt64(byte)
            value = value &* 0x0000_0100_0000_01b3
        }
        return value
    }

    /// The host name, reduced to what a device id may hold (letters, digits, '-', '_', '.').
    public static func hostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "lifesignal" }
        let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let kept = String(name.unicodeScalars.filter { scalar in
            scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || "-_.".unicodeScalars.contains(scalar))
        }.prefix(64))
        return kept.isEmpty ? "lifesignal" : kept
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
