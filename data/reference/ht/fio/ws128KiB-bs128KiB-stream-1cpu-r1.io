rchar: 121836121016
wchar: 13670
syscr: 929755
syscw: 5
read_bytes: 8192
write_bytes: 49152
cancelled_write_bytes: 0
