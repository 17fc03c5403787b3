import Glibc

/// A file holding a secret the daemon needs (the uplink's token, the MQTT broker's password): a
/// regular file no other user can access, holding the secret on one line.
///
/// Symlinks are followed (e.g. to a credentials directory); the mode checked is the target's.
/// Errors say which file, what is wrong and how to fix it, and never show the secret.
public enum SecretFile {
    /// The largest file accepted: a secret is a line, not a document.
    public static let limit = 4096

    /// Reads the secret: the file's text without the whitespace around it (a final newline).
    /// `what` names the file ("the uplink token file"), `secret` what belongs in it ("the device's token").
    public static func read(path: String, what: String, secret: String) throws(SecretFileError) -> String {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        guard descriptor >= 0 else {
            let code = errno
            throw SecretFileError("cannot read \(what) \(path): \(errnoText(code)); "
                + "create it (mode 0600, owned by the daemon's user) with \(secret) on one line")
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            throw SecretFileError("\(what) \(path) is not a regular file")
        }
        let mode = info.st_mode & 0o7777
        guard mode & 0o007 == 0 else {
            throw SecretFileError("\(what) \(path) has mode \(octal(mode)), so other users can "
                + "access it; refusing to use a secret others may have read. Run: chmod 600 \(path) "
                + "(or 640 with the daemon's group), and replace \(secret) if it may have leaked")
        }
        var bytes = [UInt8](repeating: 0, count: limit + 1)
        var count = 0
        while count < bytes.count {
            let got = bytes.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress! + count, $0.count - count) }
            if got < 0 {
                if errno == EINTR { continue }
                throw SecretFileError("cannot read \(what) \(path): \(errnoText(errno))")
            }
            if got == 0 { break }
            count += got
        }
        guard count <= limit else { throw SecretFileError("\(what) \(path) is larger than 4 KiB") }
        let whitespace: Set<Unicode.Scalar> = [" ", "\t", "\r", "\n"]
        let scalars = String(decoding: bytes.prefix(count), as: UTF8.self).unicodeScalars
        let text = String(String.UnicodeScalarView(
            scalars.drop { whitespace.contains($0) }.reversed().drop { whitespace.contains($0) }.reversed()))
        guard !text.isEmpty else { throw SecretFileError("\(what) \(path) is empty; put \(secret) in it") }
        return text
    }

    private static func octal(_ mode: mode_t) -> String {
        let digits = String(mode, radix: 8)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}

public struct SecretFileError: Error, Hashable, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
