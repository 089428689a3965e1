rchar: 20832480200
wchar: 13663
syscr: 5086247
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
