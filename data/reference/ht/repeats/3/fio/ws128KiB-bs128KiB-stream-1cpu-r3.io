rchar: 114792705019
wchar: 13672
syscr: 876019
syscw: 5
read_bytes: 0
write_bytes: 49152
cancelled_write_bytes: 0
