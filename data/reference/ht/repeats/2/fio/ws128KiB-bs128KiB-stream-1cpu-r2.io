rchar: 94703823830
wchar: 13668
syscr: 722751
syscw: 5
read_bytes: 0
write_bytes: 49152
cancelled_write_bytes: 0
