rchar: 42205162491
wchar: 13659
syscr: 322219
syscw: 5
read_bytes: 2416640
write_bytes: 8192
cancelled_write_bytes: 0
