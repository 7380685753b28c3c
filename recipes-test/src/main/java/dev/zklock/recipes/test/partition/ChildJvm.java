package dev.zklock.recipes.test.partition;

import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.jar.JarFile;
import java.util.jar.Manifest;

/**
 * The command line of a child JVM that runs a main class of this JVM's classpath: the running JVM's {@code java}, and
 * its classpath with real jar paths, a manifest-only jar (Surefire's booter, a launcher jar) opened into its {@code
 * Class-Path} entries. Immutable and thread-safe.
 */
final class ChildJvm {
    private final String java;
    private final String classpath;

    private ChildJvm(String java, String classpath) {
        this.java = java;
        this.classpath = classpath;
    }

    /** Returns the child JVM of the running one. */
    static ChildJvm ofRunningJvm() {
        return of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                System.getProperty("java.class.path"));
    }

    /** Returns the child JVM that runs {@code java} on {@code classpath}, its manifest-only jars opened. */
    static ChildJvm of(String java, String classpath) {
        Set<String> entries = new LinkedHashSet<>();
        for (String entry : classpath.split(File.pathSeparator)) {
            if (!entry.isEmpty()) {
                expand(Path.of(entry).toAbsolutePath(), entries);
            }
        }
        return new ChildJvm(java, String.join(File.pathSeparator, entries));
    }

    /** Returns the classpath a child gets. */
    String classpath() {
        return classpath;
    }

    /** Returns {@code java <jvmOptions> -cp <classpath> <mainClass> <args>}. */
    List<String> command(List<String> jvmOptions, String mainClass, List<String> args) {
        List<String> command = new ArrayList<>();
        command.add(java);
        command.addAll(jvmOptions);
        command.add("-cp");
        command.add(classpath);
        command.add(mainClass);
        command.addAll(args);
        return command;
    }

    private static void expand(Path entry, Set<String> entries) {
        List<Path> listed = entry.toString().endsWith(".jar") ? manifestClassPath(entry) : List.of();
        if (!entries.add(entry.toString()) || listed.isEmpty()) {
            return;
        }
        for (Path path : listed) {
            expand(path, entries);
        }
    }

    private static List<Path> manifestClassPath(Path jar) {
        if (!Files.isRegularFile(jar)) {
            return List.of();
        }
        try (JarFile file = new JarFile(jar.toFile())) {
            Manifest manifest = file.getManifest();
            String value =
                    manifest == null ? null : manifest.getMainAttributes().getValue("Class-Path");
            if (value == null || value.isBlank()) {
                return List.of();
            }
            List<Path> paths = new ArrayList<>();
            for (String item : value.trim().split("\\s+")) {
                paths.add(resolve(jar, item));
            }
            return paths;
        } catch (IOException notAJar) {
            return List.of(); // the child JVM reads it as its parent did, or skips it as its parent does
        } catch (URISyntaxException e) {
            throw new IllegalStateException("a Class-Path entry of " + jar + " is not a URI", e);
        }
    }

    private static Path resolve(Path jar, String item) throws URISyntaxException {
        // Class-Path entries are URIs (Surefire writes absolute file: ones), relative to the jar's directory otherwise.
        URI uri = new URI(item);
        return Path.of(uri.isAbsolute() ? uri : jar.getParent().toUri().resolve(uri));
    }
}
