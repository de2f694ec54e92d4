package io.tandem.tomcat;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * TLS for the replication transport, from {@code <Manager>} attributes: a keystore with this node's key and a
 * truststore with the certificates (or CA) of the members; both ends authenticate. Absent attributes mean plain TCP
 * (the HMAC challenge still authenticates every peer).
 */
final class TlsSettings {
  static final Set<String> ATTRIBUTES =
      Set.of("tlsKeystore", "tlsKeystorePassword", "tlsKeystoreType", "tlsTruststore", "tlsTruststorePassword");

  private TlsSettings() {}

  /** The TLS context, or null when TLS is not configured. */
  static SSLContext parse(Map<String, String> attributes, List<String> violations) {
    String keystore = attributes.get("tlsKeystore");
    if (keystore == null) {
      for (String name : ATTRIBUTES) {
        if (attributes.containsKey(name)) {
          violations.add(name + ": set without tlsKeystore; set tlsKeystore too, or remove it");
        }
      }
      return null;
    }
    String type = attributes.getOrDefault("tlsKeystoreType", "PKCS12");
    char[] password = attributes.getOrDefault("tlsKeystorePassword", "").toCharArray();
    String truststore = attributes.getOrDefault("tlsTruststore", keystore);
    char[] trustPassword = attributes.getOrDefault("tlsTruststorePassword", new String(password)).toCharArray();
    try {
      KeyStore keys = load(Path.of(keystore), type, password);
      KeyStore trusted = load(Path.of(truststore), type, trustPassword);
      KeyManagerFactory keyManagers = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
      keyManagers.init(keys, password);
      TrustManagerFactory trustManagers = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      trustManagers.init(trusted);
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(keyManagers.getKeyManagers(), trustManagers.getTrustManagers(), null);
      return context;
    } catch (Exception e) {
      violations.add("tlsKeystore/tlsTruststore: cannot load '" + keystore + "' / '" + truststore + "' as " + type + ": " + e.getMessage());
      return null;
    }
  }

  private static KeyStore load(Path file, String type, char[] password) throws Exception {
    KeyStore store = KeyStore.getInstance(type);
    try (InputStream in = Files.newInputStream(file)) {
      store.load(in, password);
    }
    return store;
  }
}
