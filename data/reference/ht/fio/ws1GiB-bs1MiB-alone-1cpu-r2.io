rchar: 36490554281
wchar: 13658
syscr: 35020
syscw: 5
read_bytes: 196608
write_bytes: 32768
cancelled_write_bytes: 0
