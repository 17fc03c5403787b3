import CQRencode
import Glibc
public import LinuxIO

/// libqrencode, loaded at run time with `dlopen`, for the QR code `lifesignalctl pair` draws.
///
/// Only lifesignalctl uses it, and only for `pair`: nothing links it, so the daemon never maps it
/// and a system without it still prints the code as text (with one line saying what to install).
/// Every function pointer's type comes from qrencode.h (see CQRencode/shim.h).
public final class LibQRencode: @unchecked Sendable {  // immutable after init: a handle and pointers to code
    /// The soname of libqrencode 4 (Debian package libqrencode4), the only ABI this is written for.
    public static let soname = "libqrencode.so.4"

    private let library: DynamicLibrary
    private let encodeString: lifesignal_qrcode_encode_string_fn
    private let free: lifesignal_qrcode_free_fn
    private let apiVersionString: lifesignal_qrcode_api_version_string_fn

    /// Opens `soname` and resolves every function; nothing is called yet. A missing library or
    /// function is an error naming it and the package to install, never a crash.
    public static func load(soname: String = soname) throws(LibraryUnavailable) -> LibQRencode {
        do {
            return try LibQRencode(library: DynamicLibrary.open(soname))
        } catch {
            throw LibraryUnavailable(.libqrencode, error)
        }
    }

    private init(library: DynamicLibrary) throws(DynamicLibraryError) {
        self.library = library
        encodeString = try library.function("QRcode_encodeString")
        free = try library.function("QRcode_free")
        apiVersionString = try library.function("QRcode_APIVersionString")
    }

    /// "libqrencode 4.1.1".
    public var versionText: String {
        "libqrencode " + (apiVersionString().map { String(cString: $0) } ?? "(unknown version)")
    }

    /// `text` as the smallest QR code that holds it with error correction level M (15 % of the
    /// symbol may be lost: a smudged screen, a reflection). Upper-case letters, digits and `-` fit
    /// the alphanumeric mode, about 1.6 times denser than bytes.
    public func encode(_ text: String) throws(QREncodingError) -> QRMatrix {
        guard !text.utf8.contains(0) else { throw QREncodingError(reason: "the text has a NUL character") }
        let code = text.withCString { encodeString($0, 0, QR_ECLEVEL_M, QR_MODE_8, 1) }
        guard let code else {
            throw QREncodingError(reason: "libqrencode could not encode \(text.utf8.count) bytes: \(errnoDescription(errno))")
        }
        defer { free(code) }
        let width = Int(code.pointee.width)
        guard width > 0, let data = code.pointee.data else { throw QREncodingError(reason: "libqrencode returned an empty symbol") }
        let modules = UnsafeBufferPointer(start: data, count: width * width).map { $0 & 1 == 1 }
        return QRMatrix(version: Int(code.pointee.version), size: width, modules: modules)
    }
}

/// A text libqrencode could not turn into a QR code (too long for the largest version, say).
public struct QREncodingError: Error, Hashable, Sendable, CustomStringConvertible {
    public var reason: String
    public var description: String { "cannot draw the QR code: \(reason)" }
}

extension LibraryUnavailable.Role {
    static let libqrencode = Self(
        name: "libqrencode", initializer: "QRcode_encodeString", user: "lifesignalctl pair",
        fix: "to see the QR code, install the Debian package libqrencode4 (sudo apt install libqrencode4); the code above works without it")
}
