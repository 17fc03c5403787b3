import Glibc

/// A shared library loaded at run time with `dlopen`, and its functions looked up by name: for
/// libraries the daemon needs only in some configurations (libcurl for the uplink, libmosquitto
/// for MQTT), so a device without them never maps them. Unloaded when the last reference goes.
public final class DynamicLibrary: @unchecked Sendable {  // immutable after init: a handle
    public let soname: String
    private let handle: UnsafeMutableRawPointer

    /// Opens `soname`, resolving every symbol now (RTLD_NOW): a library missing a dependency fails
    /// here, not at its first call. Its symbols stay out of the global namespace (RTLD_LOCAL).
    public static func open(_ soname: String) throws(DynamicLibraryError) -> DynamicLibrary {
        _ = dlerror()
        guard let handle = dlopen(soname, RTLD_NOW | RTLD_LOCAL) else {
            throw DynamicLibraryError(library: soname, step: .open, reason: lastLoaderError())
        }
        return DynamicLibrary(soname: soname, handle: handle)
    }

    private init(soname: String, handle: UnsafeMutableRawPointer) {
        self.soname = soname
        self.handle = handle
    }

    /// The function `name` as `Function`, a C function pointer type (the caller's declaration from
    /// the library's header: a wrong one is undefined behaviour, so it comes from `__typeof__`).
    public func function<Function>(_ name: String) throws(DynamicLibraryError) -> Function {
        _ = dlerror()
        guard let address = dlsym(handle, name) else {
            throw DynamicLibraryError(library: soname, step: .function(name), reason: lastLoaderError())
        }
        return unsafeBitCast(address, to: Function.self)
    }

    deinit {
        dlclose(handle)
    }
}

/// The loader's message for the last failed dlopen/dlsym.
private func lastLoaderError() -> String {
    dlerror().map { String(cString: $0) } ?? "no reason given"
}

/// A library that could not be opened, or lacks a function.
public struct DynamicLibraryError: Error, Hashable, Sendable {
    public enum Step: Hashable, Sendable {
        /// dlopen failed (missing, unreadable, wrong architecture, not a library).
        case open
        /// The library has no such function (another library, or too old).
        case function(String)
    }

    public var library: String
    public var step: Step
    /// The dynamic loader's message.
    public var reason: String
}
