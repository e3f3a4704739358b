#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The error thrown when a value cannot be saved, loaded or deleted.
///
/// Its ``description`` is a sentence a person can act on (see <doc:GettingStarted#Handle-a-missing-or-damaged-file>).
/// Whatever the reason, a failed operation leaves the file as it was and leaves no temporary file behind, except
/// where ``Reason/writeFailed(operation:errno:)`` says otherwise.
///
/// Each operation names the reasons particular to it. Besides those, any operation on a type's file may throw:
/// - ``Reason/invalidFileName(_:)`` or ``Reason/fileNameTooLong(name:limit:)`` for a bad ``Persistible/fileName``;
/// - ``Reason/unreadable(codingPath:detail:)`` when it reads a file that holds neither the type nor an array of it;
/// - ``Reason/fileTooLarge(size:limit:)`` for a file over 1 GiB;
/// - ``Reason/readFailed(operation:errno:)`` if the system refuses to read the file, or a directory, FIFO, device
///   or socket stands in its place;
/// - and when it writes: ``Reason/encodingFailed(detail:)`` if the encoder refuses a value,
///   ``Reason/unknownKeysWouldBeLost(keyPaths:)`` if a record it changes holds keys with no place in the new value,
///   ``Reason/writeTooLarge(size:limit:)`` if the file it would write is over 1 GiB,
///   ``Reason/lockHeld(processID:)`` after waiting ``Persistible/archiveLockTimeout`` for another writer,
///   ``Reason/inTheWay(path:owner:)`` if another user's file stands where its lock file or temporary goes, and
///   ``Reason/writeFailed(operation:errno:)`` or ``Reason/lockFailed(operation:errno:)`` if the system refuses;
/// - ``Reason/linkNotFollowed(link:owner:)`` where the way to the file leads through another user's link in a
///   shared directory.
public struct PersistenceError: Error, Sendable, Equatable {
    /// Why an operation failed.
    public enum Reason: Sendable, Equatable {
        /// There is no file: nothing has been saved yet, or it was deleted.
        case fileNotFound

        /// The file exists but does not hold the type, nor an array of it, and is never written over; it is
        /// damaged or written by another version of the type, as ``PersistenceError/versionMismatch`` tells.
        /// `codingPath` locates the problem (`[3].age`, empty for the whole file); `detail` is the decoder's message.
        case unreadable(codingPath: String, detail: String)

        /// ``Persistible/loadFromFile()`` found an array of `count` values where it expected a single one.
        case holdsArray(count: Int)

        /// ``Persistible/fileName`` cannot name a file in ``Persistible/archiveDirectory``: it is empty, `.` or
        /// `..`, or holds `/` or NUL.
        case invalidFileName(String)

        /// The encoder refused the values; `detail` is its message.
        case encodingFailed(detail: String)

        /// A system call failed while reading the file; `errno` is its error number.
        case readFailed(operation: String, errno: Int32)

        /// A system call failed while writing the file or its directory; `errno` is its error number. For
        /// `"fsync directory"` the change is in place (see <doc:Guarantees#Atomic-replacement>).
        case writeFailed(operation: String, errno: Int32)

        /// The lock that serializes writers could not be taken; `errno` is the error number.
        case lockFailed(operation: String, errno: Int32)

        /// A store's `update` found no record with this identity.
        case recordNotFound(identity: String)

        /// A write would have dropped keys that another version of the type wrote (see <doc:ModelEvolution>); nothing
        /// was written. `keyPaths` names them: `[3].address.zip`, `[3].tags[]` for an array, `[3]` for a record.
        case unknownKeysWouldBeLost(keyPaths: [String])

        /// The file holds `size` bytes, more than the `limit` of 1 GiB a load or save reads.
        case fileTooLarge(size: Int64, limit: Int64)

        /// A write would have made the file `size` bytes long, more than the `limit` of 1 GiB a load reads; nothing
        /// was written. Unlike ``fileTooLarge(size:limit:)``, it is about what the values would take, not the file.
        case writeTooLarge(size: Int64, limit: Int64)

        /// The file's name is longer than `limit` bytes of UTF-8 (see <doc:Guarantees#Limits>).
        case fileNameTooLong(name: String, limit: Int)

        /// Another writer held the file's lock for longer than the write may wait; nothing was written. `processID`
        /// is the holder where the system can tell: another process or this one.
        case lockHeld(processID: Int32?)

        /// A change or a lookup by identity found `identity` in more than one record, at `records` (counting from
        /// 0), and cannot tell which one it is about; nothing was written. Only a file edited by hand or written by
        /// another tool holds an identity twice (see <doc:Guarantees#One-identity-one-record>).
        case repeatedIdentity(identity: String, records: [Int])

        /// The way to the file leads through the symbolic link at `link`, owned by the user `owner`, in a sticky
        /// directory anyone may write to, and that link belongs neither to this process's user nor to the directory's
        /// owner: it is not followed (see <doc:Guarantees#Shared-directories>). Nothing was read or written.
        case linkNotFollowed(link: String, owner: UInt32)

        /// Something the write may neither use nor remove stands at the path of the file's lock file or temporary,
        /// `path`: a file of another user's, `owner`, in a directory others may write, or what is not a regular
        /// file. Nothing was written (see <doc:Guarantees#Shared-directories>).
        case inTheWay(path: String, owner: UInt32)
    }

    /// Why the operation failed.
    public var reason: Reason

    /// The file the operation was about.
    public var url: URL

    /// The name of the persisted type.
    public var typeName: String

    /// The lock file that a ``Reason/lockFailed(operation:errno:)`` or ``Reason/lockHeld(processID:)`` is about, where
    /// it is known: beside the file at the end of the url's links.
    var lockPath: String?

    /// The command name of the process a ``Reason/lockHeld(processID:)`` names, where the system told it.
    var holderName: String?

    /// For an ``Reason/unreadable(codingPath:detail:)`` file that is valid JSON, what each version of the type said
    /// about the first record none of them reads; `nil` for damage and other reasons (see <doc:ModelEvolution>).
    public var versionMismatch: VersionMismatch?

    /// Creates an error.
    public init(_ reason: Reason, url: URL, typeName: String, versionMismatch: VersionMismatch? = nil) {
        self.reason = reason
        self.url = url
        self.typeName = typeName
        self.versionMismatch = versionMismatch
    }
}

// MARK: - Description

extension PersistenceError: CustomStringConvertible, LocalizedError {
    /// ``errorDescription`` followed by ``recoverySuggestion``: what happened and what to do, for logs and developers.
    public var description: String {
        [errorDescription, recoverySuggestion].compactMap { $0 }.joined(separator: " ")
    }

    /// What happened and what became of the file, in words for the program's user: the `localizedDescription`.
    public var errorDescription: String? {
        wording.happened
    }

    /// The system's or the decoder's own words for the cause, where there are any.
    public var failureReason: String? {
        switch reason {
        case .unreadable(_, let detail), .encodingFailed(let detail):
            return Self.sentence(detail)
        case .readFailed(_, let code), .writeFailed(_, let code), .lockFailed(_, let code):
            return SystemError.message(for: code) + "."
        default:
            return nil
        }
    }

    /// What to do about it, for the developer: it may name the package's API; `nil` where a retry is all there is.
    public var recoverySuggestion: String? {
        wording.advice
    }

    /// Both texts side by side, so that what the user reads and the developer's advice stay in step.
    private var wording: (happened: String, advice: String?) {
        let path = url.path
        let leftAsIs = " The file was left as it is."
        let repair = "To go on, repair the file or move it aside (moveFileAside(), salvageFile()), then try again."
        let happened: String
        var advice: String?
        switch reason {
        case .fileNotFound:
            happened = "No \(typeName) has been saved at '\(path)' yet: the file does not exist."
        case .unreadable(let codingPath, let detail):
            // The decoder's shortcoming, not the file's: neither damage nor another version.
            if let type = Self.typeUnsupported(by: detail) {
                let what = "the decoder in use does not read \(type) values on this system"
                return ("'\(path)' could not be read\(Self.at(codingPath)): \(what) (\(detail))." + leftAsIs,
                        "Read the file where the decoder supports \(type), or store the value as a type it reads.")
            }
            guard let mismatch = versionMismatch else {
                let what = "neither \(Self.article(for: typeName)) \(typeName) nor an array of \(typeName) values"
                return ("'\(path)' holds \(what)\(Self.at(codingPath)): \(Self.sentence(detail))" + leftAsIs, repair)
            }
            let record = mismatch.record.map { "record \($0)" } ?? "the value it holds"
            var text = "'\(path)' is valid JSON, but \(record) does not match \(typeName)\(Self.at(codingPath)): "
                + Self.sentence(detail)
            for attempt in mismatch.attempts.dropFirst() {
                text += " As \(attempt.typeName)\(Self.at(attempt.codingPath)): \(Self.sentence(attempt.detail))"
            }
            happened = text + " It was probably written by another version of \(typeName)." + leftAsIs
            advice = "Declare archiveDefaults for the keys added since, or an archiveMigrations entry that reads that "
                + "version, then try again."
        case .holdsArray(let count):
            let values = count == 1 ? "1 value" : "\(count) values"
            happened = "'\(path)' holds an array of \(values), not a single \(typeName)." + leftAsIs
            advice = "Read it with loadListFromFile() or load(), or replace it with overwriteFile()."
        case .invalidFileName(let name):
            happened = "'\(name)' is not a valid file name for \(typeName): a file name must not be empty, "
                + "contain '/' or NUL, or be '.' or '..'. Nothing was read or written."
        case .encodingFailed(let detail):
            happened = "A value of \(typeName) could not be encoded for '\(path)': \(Self.sentence(detail))" + leftAsIs
        case .readFailed(let operation, let code):
            happened = "Couldn't read '\(path)' (\(operation)): \(SystemError.message(for: code))."
        case .writeFailed(SystemError.directoryFlush, let code):
            happened = "Couldn't flush the directory of '\(path)' to disk: \(SystemError.message(for: code)). "
                + "The change is in place (the new contents, the removal or the move aside) but may not survive a "
                + "power loss."
            advice = "Try again: the next save or delete of this file with full durability, in any process, flushes "
                + "the directory even when it has nothing to write."
        case .writeFailed(let operation, let code):
            happened = "Couldn't write '\(path)' (\(operation)): \(SystemError.message(for: code)). "
                + "The file was left as it was."
        case .recordNotFound(let identity):
            let place = url.isFileURL ? "'\(path)'" : "memory"
            happened = "No \(typeName) with the identity \(identity) is stored in \(place) to update. "
                + "Nothing was written."
            advice = "Insert the record instead."
        case .unknownKeysWouldBeLost(let keyPaths):
            happened = "Couldn't save \(typeName) to '\(path)': the records it changes hold keys that this version of "
                + "\(typeName) does not know, written by another version, and the changed values have no place "
                + "for them (\(keyPaths.joined(separator: ", "))). Nothing was written."
            advice = "Make this change with the version that wrote those keys, or leave these records as they are."
        case .lockFailed(let operation, let code):
            happened = "Couldn't lock '\(path)' for writing (\(operation) '\(lockFile)'): "
                + "\(SystemError.message(for: code)). Nothing was written."
        case .fileTooLarge(let size, let limit):
            happened = "'\(path)' holds \(size) bytes, more than the \(limit) bytes \(Self.article(for: typeName)) "
                + "\(typeName) file may hold." + leftAsIs
            advice = repair
        case .writeTooLarge(let size, let limit):
            happened = "Couldn't write '\(path)': it would hold \(size) bytes, more than the \(limit) bytes "
                + "\(Self.article(for: typeName)) \(typeName) file may hold, which no load would read. "
                + "The file was left as it was."
            advice = "Keep fewer or smaller values in this file, or spread them over files of other names (fileName)."
        case .fileNameTooLong(let name, let limit):
            happened = "'\(name)' is too long a file name for \(typeName): it may be at most \(limit) bytes, leaving "
                + "room for the names of its temporary and lock files. Nothing was read or written."
        case .lockHeld(let processID):
            let name = holderName.map { " (\($0))" } ?? ""
            let holder = processID.map { "process \($0)\(name)" } ?? "another writer"
            happened = "Couldn't write '\(path)': \(holder) held its lock, '\(lockFile)', for longer than "
                + "\(typeName)'s writes may wait. Nothing was changed."
            advice = "Try again later, or find out what that process is doing. archiveLockTimeout, or a store's "
                + "lockTimeout, sets how long a write waits; nil waits as long as it takes."
        case .inTheWay(let obstacle, let owner):
            happened = "Couldn't write '\(path)': '\(obstacle)' is in the way: owned by uid \(owner). "
                + "Nothing was written."
            advice = "Its owner, the owner of its directory or root may remove it; then try again."
        case .repeatedIdentity(let identity, let records):
            let positions = records.map(String.init).joined(separator: ", ")
            happened = "'\(path)' holds the identity \(identity) in more than one record (records \(positions), "
                + "counting from 0), so which one is meant cannot be told. Nothing was changed."
            advice = "Keep one record with that identity: edit the file, or change the records with updateList(_:) "
                + "or removeFromFile(where:), which see them all."
        case .linkNotFollowed(let link, let owner):
            happened = "Couldn't use '\(path)': the way to it leads through the symbolic link '\(link)', which "
                + "belongs to uid \(owner), in a directory anyone may write to, so it was not followed. Nothing was "
                + "read or written."
            advice = "Remove the link, or have the user who runs this program or the directory's owner make it."
        }
        return (happened, advice)
    }

    /// The lock file's path, as the operation found it or, for an error made by hand, beside the url.
    private var lockFile: String { lockPath ?? url.path + ".lock" }

    /// " at [3].age", or nothing for the whole file.
    static func at(_ codingPath: String) -> String {
        codingPath.isEmpty ? "" : " at \(codingPath)"
    }

    /// The type a decoder said it cannot read, in the words of the standard library's default for a container method
    /// that a decoder does not implement (`Decoder has not implemented support for Int128`); `nil` for any other
    /// message. Such a file is neither damaged nor another version's.
    static func typeUnsupported(by detail: String) -> Substring? {
        let words = "Decoder has not implemented support for "
        guard detail.hasPrefix(words) else { return nil }
        return detail.dropFirst(words.count).prefix { !$0.isWhitespace && $0 != "." }
    }

    /// A message as a sentence: a decoder's message for an unknown enum case, for one, ends without a full stop.
    private static func sentence(_ text: String) -> String {
        guard let last = text.last, !".!?".contains(last) else { return text }
        return text + "."
    }

    /// "an" before a vowel sound, by a rule simple enough to predict (its misses, such as "a Hour", are tested).
    static func article(for name: String) -> String {
        let letters = Array(name)
        guard let first = letters.first else { return "a" }
        if letters.count > 1, first.isUppercase, letters[1].isUppercase {
            return "AEFHILMNORSX".contains(first) ? "an" : "a"
        }
        let lower = Array(name.lowercased())
        guard "aeiou".contains(lower[0]) else { return "a" }
        func isVowel(_ index: Int) -> Bool { index < lower.count && "aeiouy".contains(lower[index]) }
        if name.lowercased().hasPrefix("eu") || name.lowercased().hasPrefix("one") { return "a" }
        if lower[0] == "u", lower.count > 2, !isVowel(1), isVowel(2) {
            return lower[1] == "n" && lower[2] != "i" ? "an" : "a"
        }
        return "an"
    }
}
