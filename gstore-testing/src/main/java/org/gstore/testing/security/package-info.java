/**
 * Secure test clusters: a Kerberos realm on loopback ({@link org.gstore.testing.security.KerberosRealm}), JAAS
 * sections set in code, and the settings that make HDFS, ZooKeeper and HBase authenticate every caller.
 */
package org.gstore.testing.security;
