rchar: 150342970418
wchar: 18981
syscr: 1147247
syscw: 5
read_bytes: 0
write_bytes: 16384
cancelled_write_bytes: 0
