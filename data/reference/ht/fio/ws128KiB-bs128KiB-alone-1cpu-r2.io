rchar: 118274763769
wchar: 13668
syscr: 902585
syscw: 5
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0
