package dev.zklock.recipes.test.partition;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.jar.Attributes;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The child JVM's classpath: plain entries kept, a manifest-only jar opened into real paths. */
final class ChildJvmTest {
    @TempDir
    Path dir;

    @Test
    void of_manifestOnlyJar_opensItsClassPathIntoRealPaths() throws IOException {
        Path absolute = Files.createFile(dir.resolve("abs lib.jar")); // not even a zip: kept, not opened
        Path booter = manifestJar(dir.resolve("booter.jar"), "relative.jar " + absolute.toUri() + " classes/");

        ChildJvm jvm = ChildJvm.of("java", booter.toString());

        assertThat(jvm.classpath().split(File.pathSeparator))
                .containsExactly(
                        booter.toString(),
                        dir.resolve("relative.jar").toString(),
                        absolute.toString(),
                        dir.resolve("classes").toString());
    }

    @Test
    void command_plainEntries_keptInOrderBeforeTheMainClass() {
        String classpath = String.join(
                File.pathSeparator,
                dir.resolve("a").toString(),
                dir.resolve("b.jar").toString());

        List<String> command =
                ChildJvm.of("/jdk/bin/java", classpath).command(List.of("-Xmx64m"), "x.Main", List.of("1"));

        assertThat(command).containsExactly("/jdk/bin/java", "-Xmx64m", "-cp", classpath, "x.Main", "1");
    }

    private static Path manifestJar(Path jar, String classPath) throws IOException {
        Manifest manifest = new Manifest();
        manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        manifest.getMainAttributes().put(Attributes.Name.CLASS_PATH, classPath);
        try (OutputStream file = Files.newOutputStream(jar);
                JarOutputStream out = new JarOutputStream(file, manifest)) {
            out.flush();
        }
        return jar;
    }
}
