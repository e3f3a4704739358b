import Foundation

// The one place where what the platform, the lock and the reader throw becomes the public error.

extension Archive {
    func failure(_ reason: PersistenceError.Reason) -> PersistenceError {
        PersistenceError(reason, url: url, typeName: typeName)
    }

    /// Turns what the internals threw into the public error; any other error, such as one a store's write block
    /// threw, passes through as it is.
    func translate(_ error: any Error) -> any Error {
        switch error {
        case let error as SystemError: return failure(error.reason)
        case let error as FileLock.Held: return failure(.lockHeld(processID: error.processID))
        case let error as FileReader.FileTooLarge:
            return failure(.fileTooLarge(size: error.size, limit: FileReader.sizeLimit))
        default: return error
        }
    }

    /// The bytes and identity of the file at `path`, or `nil` if there is no file, with any failure as the public
    /// error.
    func contents(atPath path: String) throws(PersistenceError) -> (Data, FileIdentity)? {
        do {
            return try FileReader.contents(atPath: path)
        } catch {
            throw translate(error) as? PersistenceError ?? failure(.readFailed(operation: "read", errno: EIO))
        }
    }
}

extension SystemError {
    /// The reason a public error gives for this failure.
    var reason: PersistenceError.Reason {
        switch phase {
        case .read: return .readFailed(operation: operation, errno: code)
        case .write: return .writeFailed(operation: operation, errno: code)
        case .lock: return .lockFailed(operation: operation, errno: code)
        }
    }
}
