#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where the toolchain's plugin server and Foundation's macro library are.
package struct Toolchain: Sendable, Equatable {
    /// `…/usr/bin/swift-plugin-server`.
    package var pluginServer: String
    /// `…/usr/lib/swift/host/plugins/libFoundationMacros.so`.
    package var foundationMacros: String

    /// The toolchain whose `usr` directory is `usr`.
    package init(usr: String) {
        #if canImport(Darwin)
            let library = "libFoundationMacros.dylib"
        #else
            let library = "libFoundationMacros.so"
        #endif
        pluginServer = usr + "/bin/swift-plugin-server"
        foundationMacros = usr + "/lib/swift/host/plugins/" + library
    }

    /// The toolchain of the process that started this plugin: the compiler (`…/usr/bin/swift-frontend`),
    /// which runs from the toolchain that also holds the plugin server. The compiler gives plugins an
    /// empty environment, so its executable's path is the one reliable clue.
    package static func ofParentProcess() -> Result<Toolchain, PluginServerError> {
        let link = "/proc/\(getppid())/exe"
        var buffer = [CChar](repeating: 0, count: 4096)
        let length = readlink(link, &buffer, buffer.count - 1)
        guard length > 0 else {
            return .failure(PluginServerError(description: "cannot read \(link) to find the compiler's toolchain"))
        }
        let compiler = String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let bin = compiler.split(separator: "/", omittingEmptySubsequences: false).dropLast()
        guard bin.last == "bin" else {
            return .failure(PluginServerError(description: "the compiler \(compiler) is not in a toolchain's bin directory"))
        }
        return Toolchain(usr: bin.dropLast().joined(separator: "/")).checked()
    }

    /// This toolchain if both files are there, else why not.
    package func checked() -> Result<Toolchain, PluginServerError> {
        guard access(pluginServer, X_OK) == 0 else {
            return .failure(PluginServerError(description: "\(pluginServer) is missing or not executable"))
        }
        guard access(foundationMacros, R_OK) == 0 else {
            return .failure(PluginServerError(description: "\(foundationMacros) is missing"))
        }
        return .success(self)
    }
}
