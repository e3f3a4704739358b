#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension Store where Self: Sendable, Object: Sendable {
    /// Runs `body` with the records as they are now.
    public func read<Result: Sendable>(_ body: @escaping @Sendable (StoreReader<Object>) throws -> Result) async throws
        -> Result
    {
        try await runOffThePool(writing: false) { try self.read(body) }
    }

    /// Runs `body` with the records, then stores what it changed, all at once; nothing if `body` throws.
    public func write<Result: Sendable>(
        _ body: @escaping @Sendable (inout StoreWriter<Object>) throws -> Result
    ) async throws -> Result {
        try await runOffThePool(writing: true) { try self.write(body) }
    }

    /// Every record, in stored order.
    public func all() async throws -> [Object] {
        try await runOffThePool(writing: false) { try self.all() }
    }

    /// Inserts `object`, replacing in place a stored record with the same identity.
    public func insert(_ object: Object) async throws {
        try await runOffThePool(writing: true) { try self.insert(object) }
    }

    /// Inserts each object in order, in one write.
    public func insert(contentsOf objects: [Object]) async throws {
        try await runOffThePool(writing: true) { try self.insert(contentsOf: objects) }
    }

    /// Replaces the stored record with the same identity as `object`.
    public func update(_ object: Object) async throws {
        try await runOffThePool(writing: true) { try self.update(object) }
    }

    /// Deletes the record with the same identity as `object`; does nothing if there is none.
    public func delete(_ object: Object) async throws {
        try await runOffThePool(writing: true) { try self.delete(object) }
    }

    /// Deletes every record.
    public func deleteAll() async throws {
        try await runOffThePool(writing: true) { try self.deleteAll() }
    }

    /// Makes the store hold exactly `objects`, in their order, in one write.
    public func replaceAll(with objects: [Object]) async throws {
        try await runOffThePool(writing: true) { try self.replaceAll(with: objects) }
    }

    /// Makes the store hold exactly `objects`, in their order, in one write, and reports what changed.
    @discardableResult
    public func synchronize(with objects: [Object]) async throws -> SynchronizeResult<Object> {
        try await runOffThePool(writing: true) { try self.synchronize(with: objects) }
    }

    /// Applies the changes made to `child` since it was made, in one write.
    public func merge(_ child: MemoryStore<Object>) async throws {
        try await runOffThePool(writing: true) { try self.merge(child) }
    }
}

extension StoreQuery where Base: Sendable, Base.Object: Sendable {
    /// The records the query selects, in its order.
    public func result() async throws -> [Object] {
        try await store.runOffThePool(writing: false) { try self.result() }
    }

    /// The first record the query selects, if any.
    public func first() async throws -> Object? {
        try await store.runOffThePool(writing: false) { try self.first() }
    }

    /// How many records the query selects.
    public func count() async throws -> Int {
        try await store.runOffThePool(writing: false) { try self.count() }
    }
}

extension Store {
    /// Runs `work` on a thread of its own (see ``BlockingWork``); where the system refuses one, throws a
    /// ``PersistenceError`` about this store rather than end the process.
    func runOffThePool<Result: Sendable>(
        writing: Bool, _ work: @escaping @Sendable () throws -> Result
    ) async throws -> Result {
        do {
            return try await BlockingWork.run(work)
        } catch let refused as PlatformThread.Refused {
            let operation = PlatformThread.startOperation
            throw PersistenceError(
                writing ? .writeFailed(operation: operation, errno: refused.code)
                    : .readFailed(operation: operation, errno: refused.code),
                url: (self as? any FileBackedStore)?.url ?? URL(string: "memory:")!,
                typeName: runtimeTypeName(Object.self)
            )
        }
    }
}

/// A store whose errors name its file.
protocol FileBackedStore {
    var url: URL { get }
}

extension FileStore: FileBackedStore {}

extension DomainStore: FileBackedStore {}
