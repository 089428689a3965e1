rchar: 78620503035
wchar: 18969
syscr: 600047
syscw: 5
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0
