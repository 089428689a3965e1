rchar: 14284818897
wchar: 5976
syscr: 109174
syscw: 3
read_bytes: 0
write_bytes: 49152
cancelled_write_bytes: 0
