// What Persistible's Apple branches use from Darwin and Glibc does not have, for `.ci/darwin-check`, which
// type-checks a copy of the package with those branches selected against Glibc and this module. Nothing here runs.
//
// Each Darwin declaration is the Swift import of the C declaration quoted above it, read in Apple's xnu sources
// (github.com/apple-oss-distributions/xnu, xnu-11417.101.15; path and line given). Swift imports `int` as Int32,
// `uint32_t`, `__uint32_t` and `unsigned int` as UInt32, `size_t` and `ssize_t` as Int, `const char *` as
// `UnsafePointer<CChar>!`, `char *` as `UnsafeMutablePointer<CChar>!`, and a macro that is an integer literal as an
// Int32 constant.
import Dispatch
import Glibc

private func notHere() -> Never {
    fatalError("DarwinStandIn is for type-checking only")
}

// MARK: - Darwin only

// bsd/sys/clonefile.h:49  int fclonefileat(int, int, const char *, uint32_t)
public func fclonefileat(_ source: Int32, _ directory: Int32, _ path: UnsafePointer<CChar>!, _ flags: UInt32) -> Int32 {
    notHere()
}

// bsd/sys/clonefile.h:33  #define CLONE_NOFOLLOW 0x0001
public let CLONE_NOFOLLOW: Int32 = 0x0001
// bsd/sys/clonefile.h:34  #define CLONE_NOOWNERCOPY 0x0002
public let CLONE_NOOWNERCOPY: Int32 = 0x0002

// bsd/sys/stdio.h:52  int renamex_np(const char *, const char *, unsigned int)
public func renamex_np(_ from: UnsafePointer<CChar>!, _ to: UnsafePointer<CChar>!, _ flags: UInt32) -> Int32 {
    notHere()
}

// bsd/sys/stdio.h:37  #define RENAME_EXCL 0x00000004
public let RENAME_EXCL: Int32 = 0x0000_0004

// bsd/sys/fcntl.h:304  #define F_FULLFSYNC 51
public let F_FULLFSYNC: Int32 = 51
// bsd/sys/fcntl.h:389  #define F_BARRIERFSYNC 85
public let F_BARRIERFSYNC: Int32 = 85
// bsd/sys/fcntl.h:140  #define O_EVTONLY 0x00008000
public let O_EVTONLY: Int32 = 0x0000_8000

// bsd/sys/stat.h:471-474, 500-501  UF_SETTABLE 0x0000ffff, UF_IMMUTABLE 0x00000002, UF_APPEND 0x00000004,
// SF_IMMUTABLE 0x00020000, SF_APPEND 0x00040000
public let UF_SETTABLE: Int32 = 0x0000_ffff
public let UF_IMMUTABLE: Int32 = 0x0000_0002
public let UF_APPEND: Int32 = 0x0000_0004
public let SF_IMMUTABLE: Int32 = 0x0002_0000
public let SF_APPEND: Int32 = 0x0004_0000

// bsd/sys/resource.h:505  #define RLIMIT_FSIZE 1 (Glibc's is a case of an enumeration)
public let RLIMIT_FSIZE: Int32 = 1
// bsd/sys/resource.h  #define RLIMIT_NPROC 7 (Glibc's is a case of an enumeration)
public let RLIMIT_NPROC: Int32 = 7

// bsd/sys/stat.h:594  int fchflags(int, __uint32_t)
public func fchflags(_ descriptor: Int32, _ flags: UInt32) -> Int32 {
    notHere()
}

// bsd/sys/xattr.h:105  ssize_t flistxattr(int fd, char *namebuff, size_t size, int options)
public func flistxattr(
    _ descriptor: Int32, _ names: UnsafeMutablePointer<CChar>!, _ size: Int, _ options: Int32
) -> Int {
    notHere()
}

// bsd/sys/xattr.h:101  int fremovexattr(int fd, const char *name, int options)
public func fremovexattr(_ descriptor: Int32, _ name: UnsafePointer<CChar>!, _ options: Int32) -> Int32 {
    notHere()
}

// bsd/sys/stat.h:166-180, the fields of `struct stat` (`__DARWIN_STRUCT_STAT64`, line 190): `__uint32_t st_flags`,
// `struct timespec st_mtimespec`, `struct timespec st_ctimespec`, none of which Glibc's has. The fields both have
// keep Glibc's types here, which differ from Darwin's (bsd/sys/_types.h): `dev_t` is UInt here and Int32 there,
// `mode_t` UInt32 and UInt16, `ino_t` UInt and UInt64, `nlink_t` UInt and UInt16, `blksize_t` Int and Int32.
extension stat {
    public var st_flags: UInt32 { notHere() }
    public var st_mtimespec: timespec { notHere() }
    public var st_ctimespec: timespec { notHere() }
}

// MARK: - Dispatch on Darwin

// Apple's Dispatch overlay declares these; swift-corelibs-libdispatch, the same overlay, leaves them out of Linux
// builds (`src/swift/Source.swift`: `#if !os(Linux) && !os(Android) && !os(Windows)`).
public protocol DispatchSourceFileSystemObject: DispatchSourceProtocol {
    var handle: Int32 { get }
    var data: DispatchSource.FileSystemEvent { get }
    var mask: DispatchSource.FileSystemEvent { get }
}

extension DispatchSource {
    public static func makeFileSystemObjectSource(
        fileDescriptor: Int32, eventMask: FileSystemEvent, queue: DispatchQueue? = nil
    ) -> any DispatchSourceFileSystemObject {
        notHere()
    }
}
