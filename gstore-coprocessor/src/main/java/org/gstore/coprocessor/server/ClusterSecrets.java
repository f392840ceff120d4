package org.gstore.coprocessor.server;

import org.gstore.common.wire.ClusterKeys;
import org.gstore.common.wire.DatagramCodec;
import org.gstore.common.wire.DatagramProtection;
import org.gstore.common.wire.OwnerToken;
import org.gstore.coprocessor.config.GStoreConfig;

/**
 * What this server does with the cluster secret: it signs owner tokens and datagrams with it, and verifies those
 * made with it or, while the secret is rotated, with the accepted secret.
 */
record ClusterSecrets(OwnerToken ownerTokens, DatagramCodec datagrams, String fingerprints) {

  static ClusterSecrets of(GStoreConfig config) {
    byte[] secret = config.clusterSecret();
    byte[] accepted = config.acceptedSecret();
    return new ClusterSecrets(new OwnerToken(secret, accepted),
        new DatagramCodec(secret, accepted, config.wireVersion(), config.datagramMaxBytes(),
            config.datagramFreshnessMillis(), System::currentTimeMillis, config.datagramProtection()),
        "it sends datagrams " + (config.datagramProtection() == DatagramProtection.PRIVACY ? "encrypted" : "in clear")
            + ", signs with the cluster secret of fingerprint " + ClusterKeys.fingerprint(secret)
            + (accepted == null ? "" : " and also accepts the secret of fingerprint "
                + ClusterKeys.fingerprint(accepted)));
  }
}
