import Foundation

/// What a type's file holds after a change: its contents, no file, or the error a load would throw.
///
/// The elements of ``ArchiveChanges``, which ``Persistible/changes()`` returns:
///
/// ```swift
/// for await change in Person.changes() {
///     switch change {
///     case .contents(let data): print(data.values.map(\.name))
///     case .noFile: print("Nobody saved yet.")
///     case .failure(let error): print(error)
///     }
/// }
/// ```
public enum ArchiveChange<Value> {
    /// The generic parameter's name before it was spelled out.
    @available(*, deprecated, renamed: "Value")
    public typealias T = Value

    /// The file holds these contents: what ``Persistible/load()`` returns now.
    case contents(PersistenceData<Value>)

    /// There is no file: nothing was saved yet, or it was deleted or moved away.
    case noFile

    /// The file cannot be read: `error` is what ``Persistible/load()`` throws now, with
    /// ``PersistenceError/Reason/unreadable(codingPath:detail:)`` for a file that does not decode, and
    /// ``PersistenceError/Reason/readFailed(operation:errno:)`` for one the system refuses to read. The sequence
    /// goes on, and yields the contents again once the file is repaired.
    case failure(PersistenceError)

    /// The values the file holds: none when there is no file.
    ///
    /// ```swift
    /// for await change in Person.changes() {
    ///     let people = try change.values()
    /// }
    /// ```
    ///
    /// - Returns: The values in order, one for a single value, or none for ``noFile``.
    /// - Throws: The ``PersistenceError`` of a ``failure(_:)``.
    public func values() throws(PersistenceError) -> [Value] {
        switch self {
        case .contents(let data): return data.values
        case .noFile: return []
        case .failure(let error): throw error
        }
    }
}

extension ArchiveChange: Equatable where Value: Equatable {}

extension ArchiveChange: Sendable where Value: Sendable {}

/// Which version of a file an element was read from, so that an event that changed nothing yields nothing.
enum WatchedVersion: Equatable, Sendable {
    case missing
    case file(FileIdentity)
    case failed(PersistenceError, FileIdentity?)
    /// A memory store after this many writes that changed it.
    case written(UInt64)
}

extension Archive {
    /// What the file holds now, for a change sequence, and the version of the file it was read from.
    func watchedContents() -> (Result<[Value]?, PersistenceError>, WatchedVersion) {
        switch watchedState() {
        case (.success(let state), let version): return (.success(state?.values), version)
        case (.failure(let error), let version): return (.failure(error), version)
        }
    }

    func watchedState() -> (Result<Snapshot<Value>?, PersistenceError>, WatchedVersion) {
        // Taken before reading: if the file changes in between, the version is the older one, and the next read,
        // which the change wakes, yields the newer contents rather than taking them for the same.
        let before = FileIdentity.ofFile(atPath: url.path)
        do {
            guard let state = try read() else { return (.success(nil), .missing) }
            return (.success(state), .file(state.identity))
        } catch {
            return (.failure(error), .failed(error, before))
        }
    }

    /// The element of a type's change sequence for what the file holds now.
    func change() -> (ArchiveChange<Value>, WatchedVersion) {
        switch watchedState() {
        case (.success(let state?), let version): return (.contents(state.contents), version)
        case (.success(nil), let version): return (.noFile, version)
        case (.failure(let error), let version): return (.failure(error), version)
        }
    }
}
