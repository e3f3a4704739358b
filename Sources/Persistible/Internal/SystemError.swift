import Foundation

/// A failed system call: which one, and its error number.
///
/// The internals throw this; the public operations turn it into a ``PersistenceError`` that names the file and
/// the type.
struct SystemError: Error {
    enum Phase {
        case read
        case write
        case lock
    }

    var phase: Phase
    var operation: String
    var code: Int32

    /// Captures `errno` for a call that has just failed.
    static func last(_ operation: String, _ phase: Phase) -> SystemError {
        SystemError(phase: phase, operation: operation, code: errno)
    }

    var reason: PersistenceError.Reason {
        switch phase {
        case .read: return .readFailed(operation: operation, errno: code)
        case .write: return .writeFailed(operation: operation, errno: code)
        case .lock: return .lockFailed(operation: operation, errno: code)
        }
    }
}

/// Runs a system call again for as long as a signal interrupts it.
@inline(__always)
func retryingOnInterrupt<Result: BinaryInteger>(_ call: () -> Result) -> Result {
    while true {
        let result = call()
        if result != -1 || errno != EINTR { return result }
    }
}
