#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

#if canImport(Observation)
import Observation

/// What a type's file holds, kept current as any process changes it (<doc:Watching#An-observable-value-for-apps>).
///
/// **An `ObservedArchive` belongs to the main actor**, where it reads and writes the file: keep large files off it
/// with a ``FileStore`` and its `async` operations.
@available(macOS 14.0, iOS 17.0, tvOS 17.0, watchOS 10.0, visionOS 1.0, *)
@MainActor
@Observable
public final class ObservedArchive<Value: Persistible & Codable & Hashable & Sendable> {
    /// The generic parameter's name before it was spelled out.
    @available(*, deprecated, renamed: "Value")
    public typealias T = Value

    /// What the file holds, or `nil` when there is no file.
    public private(set) var contents: PersistenceData<Value>?

    /// Why the file could not be read the last time it changed, or `nil` if it was read.
    public private(set) var error: PersistenceError?

    /// The values the file holds, in order: none when there is no file.
    public var values: [Value] { contents?.values ?? [] }

    /// The single value the file holds, or `nil` if there is no file or it holds an array.
    public var value: Value? {
        if case .single(let value) = contents { value } else { nil }
    }

    @ObservationIgnored private let directory: URL

    /// Locked because `deinit`, which cancels it, is not on the main actor.
    @ObservationIgnored private let watch = Locked<Task<Void, Never>?>(nil)

    /// Reads the file now, and watches it from then on.
    ///
    /// - Parameter detection: Events, the default, or polling, for a file on a network file system.
    public init(detection: ChangeDetection = .events) {
        directory = Value.archiveDirectory
        let changes = Value.changes(detection: detection)
        refresh()
        let task = Task { [weak self] in
            for await change in changes {
                self?.apply(change)
            }
        }
        watch.withLock { $0 = task }
    }

    deinit {
        watch.withLock { $0?.cancel() }
    }

    /// Changes the single value the file holds, as ``Persistible/update(default:_:)`` does.
    ///
    /// - Parameters:
    ///   - defaultValue: The value to start from when there is no file; evaluated only then.
    ///   - body: Changes the value; nothing is written if it throws or changes nothing.
    /// - Returns: The value the file holds afterwards.
    /// - Throws: What ``Persistible/update(default:_:)`` throws, like ``PersistenceError/Reason/holdsArray(count:)``.
    @discardableResult
    public func update(
        default defaultValue: @autoclosure () throws -> Value,
        _ body: (inout Value) throws -> Void
    ) throws -> Value {
        try writing { try Value.update(default: defaultValue(), body) }
    }

    /// Saves `value`, as ``Persistible/saveToFile()`` does.
    ///
    /// - Returns: Whether anything was written.
    /// - Throws: What ``Persistible/saveToFile()`` throws.
    @discardableResult
    public func save(_ value: Value) throws -> Bool {
        try writing { try value.saveToFile() }
    }

    /// Saves the values that the file does not hold yet, as `Array.saveToFile()` does.
    ///
    /// - Returns: How many values were added or replaced.
    /// - Throws: What ``Persistible/saveToFile()`` throws.
    @discardableResult
    public func save(_ values: [Value]) throws -> Int {
        try writing { try values.saveToFile() }
    }

    /// Changes the file's records as ``Store/write(_:)-7q86h`` does, leaving an array in the file.
    ///
    /// - Parameter body: Changes the records; nothing is written if it throws or changes nothing.
    /// - Returns: What `body` returns.
    /// - Throws: What ``Store/write(_:)-7q86h`` throws.
    @discardableResult
    public func write<Result>(_ body: (inout StoreWriter<Value>) throws -> Result) throws -> Result {
        try writing { try FileStore<Value>().write(body) }
    }

    /// Deletes the file, as ``Persistible/deleteFile()`` does.
    ///
    /// - Throws: What ``Persistible/deleteFile()`` throws.
    public func deleteFile() throws {
        try writing { try Value.deleteFile() }
    }

    /// Reads the file now instead of waiting for the watch, as every write of this object does.
    public func refresh() {
        apply(withArchiveDirectory(directory) { FileStore<Value>().change().0 })
    }

    private func writing<Result>(_ body: () throws -> Result) rethrows -> Result {
        defer { refresh() }
        return try withArchiveDirectory(directory, operation: body)
    }

    /// Sets only what differs, so that observers hear of real changes only.
    private func apply(_ change: ArchiveChange<Value>) {
        let failure: PersistenceError? = if case .failure(let failure) = change { failure } else { nil }
        if error != failure { error = failure }
        guard failure == nil else { return }
        let data: PersistenceData<Value>? = if case .contents(let data) = change { data } else { nil }
        if contents != data { contents = data }
    }
}
#endif
