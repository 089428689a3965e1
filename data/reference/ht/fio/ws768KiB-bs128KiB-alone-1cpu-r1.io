rchar: 84219243499
wchar: 13666
syscr: 642761
syscw: 5
read_bytes: 139264
write_bytes: 8192
cancelled_write_bytes: 0
