rchar: 83484412369
wchar: 5980
syscr: 637125
syscw: 3
read_bytes: 0
write_bytes: 24576
cancelled_write_bytes: 0
