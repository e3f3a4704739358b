#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// The one place where what the platform, the lock, the decoder and the encoder throw becomes the public error.

extension Archive {
    func failure(_ reason: PersistenceError.Reason) -> PersistenceError {
        PersistenceError(reason, url: url, typeName: typeName)
    }

    /// Turns what the internals threw into the public error; any other, such as a store's write block's, passes.
    func translate(_ error: any Error) -> any Error {
        switch error {
        case let error as SystemError:
            switch error.phase {
            case .read: return failure(.readFailed(operation: error.operation, errno: error.code))
            case .write: return failure(.writeFailed(operation: error.operation, errno: error.code))
            case .lock:
                var failure = failure(.lockFailed(operation: error.operation, errno: error.code))
                failure.lockPath = error.path
                return failure
            }
        case let error as FileLock.Held:
            var failure = failure(.lockHeld(processID: error.processID))
            (failure.lockPath, failure.holderName) = (error.path, error.processName)
            return failure
        case let error as RefusedLink: return failure(.linkNotFollowed(link: error.path, owner: error.owner))
        case let error as InTheWay: return failure(.inTheWay(path: error.path, owner: error.owner))
        case let error as FileReader.FileTooLarge:
            return failure(.fileTooLarge(size: error.size, limit: FileReader.sizeLimit))
        case let error as AtomicFile.TooLarge:
            return failure(.writeTooLarge(size: error.size, limit: FileReader.sizeLimit))
        default: return error
        }
    }

    // MARK: - Decoding and encoding

    /// The error for a record no version reads; with `isDamage`, for one that is not JSON, which names no mismatch,
    /// nor does a record that the decoder cannot read as the current type for want of support for a type in it.
    func mismatchError(_ mismatch: VersionMismatch, isDamage: Bool = false) -> PersistenceError {
        let first = mismatch.attempts.first
        let unsupported = first.flatMap { PersistenceError.typeUnsupported(by: $0.detail) } != nil
        return PersistenceError(
            .unreadable(codingPath: first?.codingPath ?? "", detail: first?.detail ?? ""),
            url: url, typeName: typeName, versionMismatch: isDamage || unsupported ? nil : mismatch
        )
    }

    /// The error for bytes that do not decode: damage, placed where the bytes stop being JSON (the decoder says only
    /// that they are not), or another version's record. `asOneValue`: `error` is about the file as one value.
    func unreadable(_ error: any Error, bytes: Data, asOneValue: Bool = false) -> PersistenceError {
        guard !bytes.allSatisfy(isJSONWhitespace) else {
            let detail = bytes.isEmpty ? "The file is empty." : "The file holds only whitespace, no value."
            return failure(.unreadable(codingPath: "", detail: detail))
        }
        let (path, detail) = Self.describe(error)
        guard isJSON(bytes) else {
            // The scanner reads strict JSON: it would misplace a JSON5 file's error, so the decoder's word stands.
            if scansStrictJSON, let syntaxError = JSONScanner.syntaxError(in: bytes) {
                return failure(.unreadable(codingPath: "", detail: syntaxError.description))
            }
            return failure(.unreadable(codingPath: path, detail: detail))
        }
        let record = path.hasPrefix("[") ? Int(path.dropFirst().prefix { $0 != "]" }) : nil
        let opensArray = bytes.first(where: { !isJSONWhitespace($0) }) == UInt8(ascii: "[")
        return mismatchError(VersionMismatch(
            record: opensArray && !asOneValue ? record : nil,
            attempts: [.init(typeName: typeName, codingPath: path, detail: detail)]
        ))
    }

    /// Whether `bytes` are JSON that this archive's decoder reads, whatever they hold: its strings spell text and it
    /// nests no deeper than the decoder reads, with `depth` containers around it.
    func isJSON(_ bytes: Data, nestedIn depth: Int = 0) -> Bool {
        let limit = JSONScanner.deepestNesting - depth
        if scansStrictJSON, JSONScanner.valueRange(of: bytes, checkingText: true, maximumDepth: limit) != nil {
            return true
        }
        guard let strict = StrictJSON.bytes(of: bytes, allowingJSON5: decoder.allowsJSON5) else { return false }
        return JSONScanner.valueRange(of: strict, checkingText: true, maximumDepth: limit) != nil
    }

    /// Where a decoding error occurred, as `[3].age`, and what it says.
    static func describe(_ error: any Error) -> (path: String, detail: String) {
        guard let error = error as? DecodingError else { return ("", String(describing: error)) }
        let context: DecodingError.Context
        switch error {
        case .typeMismatch(_, let c), .valueNotFound(_, let c), .keyNotFound(_, let c), .dataCorrupted(let c):
            context = c
        @unknown default:
            return ("", String(describing: error))
        }
        var path = context.codingPath.map { key in key.intValue.map { "[\($0)]" } ?? ".\(key.stringValue)" }.joined()
        if path.hasPrefix(".") { path.removeFirst() }
        var detail = context.debugDescription
        if case .keyNotFound(let key, _) = error { detail = "No value for the key '\(key.stringValue)'." }
        if let underlying = context.underlyingError {
            detail += " (\((underlying as? LocalizedError)?.errorDescription ?? "\(underlying)"))"
        }
        return (path, detail)
    }

    func encodingFailure(_ error: any Error) -> PersistenceError {
        guard case .invalidValue(_, let context)? = error as? EncodingError else {
            return failure(.encodingFailed(detail: String(describing: error)))
        }
        return failure(.encodingFailed(detail: context.debugDescription))
    }
}
