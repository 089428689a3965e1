rchar: 117042293733
wchar: 13668
syscr: 893182
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
