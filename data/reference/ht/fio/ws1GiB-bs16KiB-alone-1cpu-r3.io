rchar: 34696653769
wchar: 13664
syscr: 2117928
syscw: 5
read_bytes: 61440
write_bytes: 8192
cancelled_write_bytes: 0
